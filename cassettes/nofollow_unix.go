//go:build unix

package cassettes

import "syscall"

// oNoFollow makes opening a symbolic link fail instead of following it.
const oNoFollow = syscall.O_NOFOLLOW
