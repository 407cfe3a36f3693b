//go:build unix

package safefile

import "syscall"

// NoFollow makes opening a symbolic link fail instead of following it.
const NoFollow = syscall.O_NOFOLLOW
