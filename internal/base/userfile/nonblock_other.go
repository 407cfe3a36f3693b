//go:build !unix

package userfile

// oNonBlock: elsewhere there are no FIFOs to wait on.
const oNonBlock = 0
