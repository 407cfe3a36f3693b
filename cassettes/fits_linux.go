package cassettes

import (
	"bytes"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// addressSpaceLeft is what the address-space limit (ulimit -v,
// RLIMIT_AS) leaves this process, and whether there is one.
func addressSpaceLeft() (int64, bool) {
	var lim unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_AS, &lim) != nil || lim.Cur == unix.RLIM_INFINITY {
		return 0, false
	}
	used := int64(0)
	if statm, err := os.ReadFile("/proc/self/statm"); err == nil {
		if f := bytes.Fields(statm); len(f) > 0 {
			pages, _ := strconv.ParseInt(string(f[0]), 10, 64)
			used = pages * int64(os.Getpagesize())
		}
	}
	return int64(lim.Cur) - used, true
}
