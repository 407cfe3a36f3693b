package main

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/workload"
)

// TestLsOfASmallStepsCassettePeaksUnderTwiceItsSize runs `ls` as a real
// process on a 10 MB cassette of 15,000 small steps and on one of ten,
// and compares their peak resident memory (the kernel's ru_maxrss of the
// finished process, its VmHWM): reading the larger takes at most twice
// its size more, with 4 MiB for the noise of one run. A fixed 64 MiB
// loading limit let all its loading garbage stay, about 5 times the file
// (issue 39 items 5 and 12).
func TestLsOfASmallStepsCassettePeaksUnderTwiceItsSize(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, steps int) (string, int64) {
		sub := filepath.Join(dir, name)
		os.MkdirAll(sub, 0o755)
		f, err := os.Create(filepath.Join(sub, "c.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		n, err := workload.ManyStepsCassette(f, steps)
		if err != nil {
			t.Fatal(err)
		}
		return sub, n
	}
	idle, _ := write("idle", 10)
	small, size := write("small", 15000)
	peak := func(dir string) int64 { // the least of two runs, in bytes
		least := int64(-1)
		for range 2 {
			cmd := adkproxyCmd(t, nil, "ls", "--cassettes", dir)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("ls %s: %v\n%s", dir, err, stderr.Bytes())
			}
			rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
			if least < 0 || rss < least {
				least = rss
			}
		}
		return least
	}
	base, got := peak(idle), peak(small)
	if over := got - base; over > 2*size+4<<20 {
		t.Errorf("ls of a %.1f MB cassette of small steps peaked %.1f MB above an idle run (%.2f times the file); want at most twice the file and 4 MiB",
			float64(size)/1e6, float64(over)/1e6, float64(over)/float64(size))
	}
}
