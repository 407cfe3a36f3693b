//go:build !unix

package safefile

// oNonBlock: elsewhere there are no FIFOs to wait on.
const oNonBlock = 0
