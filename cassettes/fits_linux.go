package cassettes

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"

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

// memoryLeft is the memory this process can still take, from the
// machine's MemAvailable and its memory cgroup's limit less what the group
// uses (page cache it can drop not counted), and where that is the least.
func memoryLeft() (left int64, where string, known bool) { return memoryLeftIn("/") }

// memoryLeftIn is memoryLeft with /proc and /sys found below root.
func memoryLeftIn(root string) (left int64, where string, known bool) {
	if kb, ok := fileField(filepath.Join(root, "proc/meminfo"), "MemAvailable:"); ok {
		left, where, known = kb<<10, "the machine", true
	}
	if c, ok := cgroupLeft(root); ok && (!known || c < left) {
		left, where, known = c, "its memory cgroup", true
	}
	return left, where, known
}

// cgroupLeft is the process's memory cgroup's limit less its usage, in
// cgroup v2 (memory.max, memory.current) or v1 (memory.limit_in_bytes,
// memory.usage_in_bytes), with the group's inactive page cache taken back
// out of the usage; false without a limit.
func cgroupLeft(root string) (int64, bool) {
	self, err := os.ReadFile(filepath.Join(root, "proc/self/cgroup"))
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(self), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		var dir, limitFile, usageFile, cache string
		switch {
		case parts[0] == "0" && parts[1] == "":
			dir, limitFile, usageFile, cache = filepath.Join(root, "sys/fs/cgroup", parts[2]), "memory.max", "memory.current", "inactive_file"
		case strings.Contains(","+parts[1]+",", ",memory,"):
			dir, limitFile, usageFile, cache = filepath.Join(root, "sys/fs/cgroup/memory", parts[2]), "memory.limit_in_bytes", "memory.usage_in_bytes", "total_inactive_file"
		default:
			continue
		}
		limit, ok1 := fileNumber(filepath.Join(dir, limitFile))
		usage, ok2 := fileNumber(filepath.Join(dir, usageFile))
		if !ok1 || !ok2 || limit >= 1<<60 { // "max", or v1's page-rounded MaxInt64: no limit
			continue
		}
		inactive, _ := fileField(filepath.Join(dir, "memory.stat"), cache)
		return limit - max(usage-inactive, 0), true
	}
	return 0, false
}

// fileNumber is the number a file holds alone.
func fileNumber(path string) (int64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	return n, err == nil
}

// fileField is the number after key on a line of the file at path
// ("MemAvailable:  123 kB", "inactive_file 4096").
func fileField(path, key string) (int64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == key {
			n, err := strconv.ParseInt(f[1], 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}
