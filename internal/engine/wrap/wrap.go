// Package wrap runs the command 'adkproxy record|replay -- COMMAND' wraps:
// whether it may have the placeholder key, the signals passed on to it, and
// its exit status as the shell would give it (package clientenv makes its
// environment).
package wrap

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"

	"github.com/adkproxy/adkproxy/internal/base/proxyopt"
	"github.com/adkproxy/adkproxy/proxy"
)

// NotStarted is the status of a command that could not be started.
const NotStarted = 127

// Status is how a command ended when it did not succeed: Code is its own
// exit status, 128+N when signal N killed it, NotStarted when it could
// not run. Err says so, or is empty when the command has said what went
// wrong itself.
type Status struct {
	Code int
	Err  error
}

func (s *Status) Error() string { return s.Err.Error() }
func (s *Status) Unwrap() error { return s.Err }

// Run runs argv with env to completion, its stdin this process's, passing
// on every signal received on signals. It returns nil on success, else a
// *Status.
func Run(argv []string, env []string, signals <-chan os.Signal, stdout, stderr io.Writer) error {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Stdin = os.Stdin
	cmd.Stdout = stdout
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		return &Status{NotStarted, fmt.Errorf("cannot run %s: %v", argv[0], err)}
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for {
		select {
		case sig := <-signals:
			cmd.Process.Signal(sig)
		case err := <-done:
			return status(argv[0], err)
		}
	}
}

func status(name string, err error) error {
	if err == nil {
		return nil
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		return &Status{NotStarted, fmt.Errorf("%s: %v", name, err)}
	}
	if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return &Status{128 + int(ws.Signal()), fmt.Errorf("%s was killed by %v", name, ws.Signal())}
	}
	// The command has already said what went wrong; add nothing to stderr.
	return &Status{exit.ExitCode(), errors.New("")}
}

// PlaceholderKey says whether a wrapped command may start with the
// placeholder key: in replay, which sends no key anywhere, and in record
// from an upstream that is not Google's (a fake, a staging server).
func PlaceholderKey(cfg proxy.Config) bool {
	return cfg.Mode == proxy.ModeReplay || proxyopt.PlaceholderKeyServes(cfg.Upstream)
}

// PrintExports writes the shell lines that point a client started by hand
// at base, the Gemini variables clientenv.Env sets.
func PrintExports(w io.Writer, cfg proxy.Config, base string) {
	fmt.Fprintf(w, "export GOOGLE_GEMINI_BASE_URL=%s\nexport GOOGLE_VERTEX_BASE_URL=%s\n", base, base)
	switch {
	case cfg.Mode == proxy.ModeReplay:
		fmt.Fprintf(w, "export GOOGLE_API_KEY=%s  # any value; replay sends no key anywhere\n", proxyopt.ReplayPlaceholderKey)
	case PlaceholderKey(cfg) && os.Getenv("GOOGLE_API_KEY") == "" && os.Getenv("GEMINI_API_KEY") == "":
		fmt.Fprintf(w, "export GOOGLE_API_KEY=%s  # any value the upstream accepts; it is not Google's\n", proxyopt.ReplayPlaceholderKey)
	}
}
