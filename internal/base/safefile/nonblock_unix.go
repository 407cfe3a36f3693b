//go:build unix

package safefile

import "syscall"

// oNonBlock opens a FIFO without waiting for a writer (it is then refused
// as not a regular file); regular files ignore it.
const oNonBlock = syscall.O_NONBLOCK
