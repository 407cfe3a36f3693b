//go:build unix

package mcp

import (
	"errors"
	"syscall"
)

// alive: signal 0 reaches the process (or it exists but is another user's).
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
