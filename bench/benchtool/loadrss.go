// benchtool loadrss: the peak memory of reading a large cassette.

package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/adkproxy/adkproxy/internal/testing/workload"
)

// loadCase is one cassette loadrss reads: Set names it in the results.
type loadCase struct {
	Set   string
	write func(f *os.File) (int64, error)
}

// loadRSS measures the peak resident memory of `adkproxy ls` and of
// `adkproxy replay --check` reading one generated cassette (loadPeak): one
// step whose answer is a body of N MiB in a block literal (the Gemini JSON
// answer on one long line, its text also in the trajectory), and
// cassettes of many small steps (15,000 of them are about 11 MB: a small
// cassette, whose loading limit is not its size but the room floor). The
// same commands on a cassette of ten small steps give the idle process,
// and the ratio is (peak − idle) ÷ the file's size.
func loadRSS(args []string) error {
	fl := flag.NewFlagSet("loadrss", flag.ContinueOnError)
	bin := fl.String("bin", "bin/adkproxy", "adkproxy `BINARY`")
	sizes := fl.String("sizes-mib", "1,64,512", "body sizes in `MiB`, comma-separated")
	steps := fl.String("steps", "15000,200000", "small steps in each many-steps cassette, comma-separated (0: none)")
	style := fl.String("style", "oneline", "body style: oneline, lines or quoted")
	reps := fl.Int("reps", 3, "repetitions")
	out := fl.String("out", "", "append results to `FILE`")
	if err := fl.Parse(args); err != nil {
		return err
	}
	styles := map[string]workload.BodyStyle{"oneline": workload.OneLongLine, "lines": workload.ManyLines, "quoted": workload.DoubleQuoted}
	bodyStyle, ok := styles[*style]
	if !ok {
		return fmt.Errorf("-style %q: want oneline, lines or quoted", *style)
	}
	var cases []loadCase
	for _, s := range strings.Split(*sizes, ",") {
		mib, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || mib <= 0 {
			return fmt.Errorf("-sizes-mib: %q is not a positive number", s)
		}
		set := strconv.Itoa(mib) + "MiB"
		if bodyStyle != workload.OneLongLine {
			set += "-" + *style
		}
		cases = append(cases, loadCase{set, func(f *os.File) (int64, error) {
			return workload.LargeBodyCassette(f, int64(mib)<<20, bodyStyle)
		}})
	}
	for _, s := range strings.Split(*steps, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 0 {
			return fmt.Errorf("-steps: %q is not a number of steps", s)
		}
		if n > 0 {
			cases = append(cases, loadCase{fmt.Sprintf("%dk-steps", n/1000), func(f *os.File) (int64, error) {
				return workload.ManyStepsCassette(f, n)
			}})
		}
	}
	tmp, err := os.MkdirTemp("", "adkproxy-loadrss-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	idle := loadCase{"idle", func(f *os.File) (int64, error) { return workload.ManyStepsCassette(f, 10) }}
	idleDir, _, err := writeLoadCase(tmp, idle)
	if err != nil {
		return err
	}
	for _, c := range cases {
		dir, size, err := writeLoadCase(tmp, c)
		if err != nil {
			return err
		}
		for rep := 1; rep <= *reps; rep++ {
			for _, cmd := range []string{"ls", "replay"} {
				base, err := loadPeak(*bin, cmd, idleDir)
				if err != nil {
					return fmt.Errorf("idle %s: %v", cmd, err)
				}
				peak, err := loadPeak(*bin, cmd, dir)
				if err != nil {
					return fmt.Errorf("%s %s: %v", c.Set, cmd, err)
				}
				if err := appendResult(*out, Measurement{Kind: "loadrss",
					Tags: map[string]string{"set": c.Set, "path": "/" + cmd, "rep": strconv.Itoa(rep)},
					Values: map[string]float64{
						"file_mb": float64(size) / (1 << 20),
						"base_mb": float64(base) / 1024,
						"peak_mb": float64(peak) / 1024,
						"ratio":   float64(peak-base) * 1024 / float64(size),
					}}); err != nil {
					return err
				}
			}
		}
		os.RemoveAll(dir)
	}
	return nil
}

// writeLoadCase writes c's cassette alone in a folder of its own.
func writeLoadCase(tmp string, c loadCase) (dir string, size int64, err error) {
	dir = filepath.Join(tmp, c.Set)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", 0, err
	}
	f, err := os.Create(filepath.Join(dir, "cassette.yaml"))
	if err != nil {
		return "", 0, err
	}
	if size, err = c.write(f); err != nil {
		f.Close()
		return "", 0, err
	}
	return dir, size, f.Close()
}

// loadPeak returns the peak RSS in KiB of `adkproxy ls` on dir (its
// table thrown away; the kernel's ru_maxrss of the finished process), or
// of `adkproxy replay --check` on dir once it has loaded every cassette
// and listens (VmHWM then; it is stopped before anything is replayed).
func loadPeak(bin, command, dir string) (int64, error) {
	var stderr bytes.Buffer
	env := append(os.Environ(), "ADKPROXY_CA_DIR="+filepath.Join(dir, ".ca"))
	if command == "ls" {
		cmd := exec.Command(bin, "ls", "--cassettes", dir)
		cmd.Stderr, cmd.Env = &stderr, env
		if err := cmd.Run(); err != nil {
			return 0, fmt.Errorf("%v\n%s", err, stderr.Bytes())
		}
		return cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss, nil
	}
	addrFile := filepath.Join(dir, ".addr")
	os.Remove(addrFile)
	cmd := exec.Command(bin, "replay", "--check", "--cassettes", dir, "--listen", "127.0.0.1:0", "--addr-file", addrFile, "--log-level", "error")
	cmd.Stderr, cmd.Env = &stderr, env
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}()
	if ok, err := waitForFile(addrFile, cmd, 10*time.Minute); !ok {
		return 0, fmt.Errorf("replay did not start: %v\n%s", err, stderr.Bytes())
	}
	return vmHWM(cmd.Process.Pid)
}
