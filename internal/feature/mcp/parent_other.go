//go:build !linux

package mcp

import (
	"os/exec"
	"strconv"
	"strings"
)

// parentOf asks ps, where there is no /proc to read.
func parentOf(pid int) (int, error) {
	out, err := exec.Command("ps", "-o", "ppid=", "-p", strconv.Itoa(pid)).Output()
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(out)))
}
