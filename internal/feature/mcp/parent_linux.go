package mcp

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// parentOf reads a process's parent from /proc: the fourth field of
// /proc/PID/stat, after the command name in parentheses (which may hold
// spaces and parentheses itself).
func parentOf(pid int) (int, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0, fmt.Errorf("/proc/%d/stat: no parent", pid)
	}
	return strconv.Atoi(f[1])
}
