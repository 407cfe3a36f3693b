//go:build !unix

package cassettes

// oNonBlock: elsewhere there are no FIFOs to wait on.
const oNonBlock = 0
