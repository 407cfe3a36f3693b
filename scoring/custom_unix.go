//go:build unix

package scoring

import (
	"os/exec"
	"syscall"
)

// killGroup runs the command in its own process group and, on timeout,
// kills the whole group, so that children of a shell script die too.
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
