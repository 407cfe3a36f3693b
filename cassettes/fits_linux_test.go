package cassettes

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeTree writes files (path below root → content) and returns root.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, content := range files {
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// The memory left is the least of the machine's MemAvailable and the
// memory cgroup's limit less its usage (inactive page cache not counted),
// in cgroup v2 and v1; a cgroup without a limit leaves the machine's.
func TestMemoryLeftReadsTheMachineAndTheCgroup(t *testing.T) {
	meminfo := "MemTotal:       24683520 kB\nMemFree:         2000000 kB\nMemAvailable:    8000000 kB\n"
	for _, tc := range []struct {
		name  string
		files map[string]string
		left  int64
		where string
	}{
		{"machine only", map[string]string{"proc/meminfo": meminfo, "proc/self/cgroup": "0::/\n"}, 8000000 << 10, "the machine"},
		{"v2 limit", map[string]string{"proc/meminfo": meminfo, "proc/self/cgroup": "0::/ci/job\n",
			"sys/fs/cgroup/ci/job/memory.max": "1073741824\n", "sys/fs/cgroup/ci/job/memory.current": "600000000\n",
			"sys/fs/cgroup/ci/job/memory.stat": "anon 400000000\ninactive_file 100000000\n"}, 1073741824 - 500000000, "its memory cgroup"},
		{"v2 without a limit", map[string]string{"proc/meminfo": meminfo, "proc/self/cgroup": "0::/ci\n",
			"sys/fs/cgroup/ci/memory.max": "max\n", "sys/fs/cgroup/ci/memory.current": "600000000\n"}, 8000000 << 10, "the machine"},
		{"v1 limit", map[string]string{"proc/meminfo": meminfo, "proc/self/cgroup": "5:devices:/\n4:memory:/docker/abc\n",
			"sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes": "2147483648\n", "sys/fs/cgroup/memory/docker/abc/memory.usage_in_bytes": "147483648\n",
			"sys/fs/cgroup/memory/docker/abc/memory.stat": "cache 100\ntotal_inactive_file 47483648\n"}, 2147483648 - 100000000, "its memory cgroup"},
		{"v1 without a limit", map[string]string{"proc/meminfo": meminfo, "proc/self/cgroup": "4:memory:/\n",
			"sys/fs/cgroup/memory/memory.limit_in_bytes": "9223372036854771712\n", "sys/fs/cgroup/memory/memory.usage_in_bytes": "5\n"}, 8000000 << 10, "the machine"},
	} {
		left, where, known := memoryLeftIn(writeTree(t, tc.files))
		if !known || left != tc.left || where != tc.where {
			t.Errorf("%s: %d bytes left in %q (known %v), want %d in %q", tc.name, left, where, known, tc.left, tc.where)
		}
	}
	if _, _, known := memoryLeftIn(t.TempDir()); known {
		t.Error("with nothing to read, the memory left is known")
	}
}

// A cassette that needs more memory than is available is refused naming
// the file, where the memory ran short and what to do; one that fits is
// not.
func TestCassetteThatDoesNotFitInMemoryIsRefused(t *testing.T) {
	err := fits("/cassettes/big.yaml", 600<<20, 0, false, 1000<<20, "its memory cgroup", true)
	var fe *FormatError
	if !errors.As(err, &fe) || !errors.Is(err, ErrCorrupt) || fe.File != "/cassettes/big.yaml" ||
		!strings.Contains(err.Error(), "1200 MiB of memory, more than its memory cgroup has available (1000 MiB)") {
		t.Errorf("600 MiB in 1000 MiB: %v", err)
	}
	if err := fits("/cassettes/big.yaml", 400<<20, 0, false, 1000<<20, "the machine", true); err != nil {
		t.Errorf("400 MiB in 1000 MiB: %v", err)
	}
	if err := fits("/cassettes/big.yaml", 600<<20, 0, false, 0, "", false); err != nil {
		t.Errorf("nothing known: %v", err)
	}
}
