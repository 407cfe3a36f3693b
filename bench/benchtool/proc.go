// Starting and stopping an adkproxy process for benchtool's measurements.

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// adkproxyProc is an adkproxy serving on a free loopback port.
type adkproxyProc struct {
	cmd    *exec.Cmd
	URL    string // http://host:port
	stderr bytes.Buffer
}

// startAdkproxy runs bin with args plus a free port and an --addr-file
// in tmp, and waits until it listens. Stop it with stop.
func startAdkproxy(bin, tmp string, args ...string) (*adkproxyProc, error) {
	addrFile := filepath.Join(tmp, "addr")
	p := &adkproxyProc{}
	p.cmd = exec.Command(bin, append(args, "--listen", "127.0.0.1:0", "--addr-file", addrFile, "--log-level", "error")...)
	p.cmd.Stderr = &p.stderr
	if err := p.cmd.Start(); err != nil {
		return nil, err
	}
	if ok, err := waitForFile(addrFile, p.cmd, time.Minute); !ok {
		p.stop()
		return nil, fmt.Errorf("adkproxy %s did not start: %v\n%s", args[0], err, p.stderr.Bytes())
	}
	addr, err := os.ReadFile(addrFile)
	if err != nil {
		p.stop()
		return nil, err
	}
	p.URL = "http://" + strings.TrimSpace(string(addr))
	return p, nil
}

// stop sends SIGTERM (adkproxy writes its cassettes) and waits.
func (p *adkproxyProc) stop() {
	p.cmd.Process.Signal(syscall.SIGTERM)
	p.cmd.Wait()
}

// peakRSS is the process's VmHWM in KiB.
func (p *adkproxyProc) peakRSS() (int64, error) { return vmHWM(p.cmd.Process.Pid) }
