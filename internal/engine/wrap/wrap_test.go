package wrap

import (
	"bytes"
	"errors"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/adkproxy/adkproxy/proxy"
)

// TestRunGivesTheShellsStatus runs real commands: success is nil, an exit
// status passes through with nothing to add, a signal gives 128+N, and a
// command that cannot start gives 127.
func TestRunGivesTheShellsStatus(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if err := Run([]string{"sh", "-c", "echo $MARK"}, []string{"MARK=hello"}, nil, &out, &out); err != nil || out.String() != "hello\n" {
		t.Errorf("success: %v, output %q", err, out.String())
	}
	for _, tc := range []struct {
		argv []string
		code int
		msg  string
	}{
		{[]string{"sh", "-c", "exit 3"}, 3, ""},
		{[]string{"sh", "-c", "kill -KILL $$"}, 128 + int(syscall.SIGKILL), "sh was killed by killed"},
		{[]string{"/nonexistent/command"}, NotStarted, "cannot run /nonexistent/command"},
	} {
		err := Run(tc.argv, nil, nil, &out, &out)
		var st *Status
		if !errors.As(err, &st) || st.Code != tc.code || !strings.HasPrefix(st.Error(), tc.msg) || tc.msg == "" && st.Error() != "" {
			t.Errorf("%q: %v (%+v), want status %d saying %q", tc.argv, err, st, tc.code, tc.msg)
		}
	}
}

// TestRunPassesSignalsOn: a signal adkproxy receives reaches the command.
func TestRunPassesSignalsOn(t *testing.T) {
	t.Parallel()
	signals := make(chan os.Signal, 1)
	ready := t.TempDir() + "/ready"
	go func() {
		for {
			if _, err := os.Stat(ready); err == nil {
				signals <- syscall.SIGTERM
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
	var out bytes.Buffer
	err := Run([]string{"sh", "-c", "trap 'echo got TERM; exit 9' TERM; touch " + ready + "; while :; do sleep 0.01; done"}, nil, signals, &out, &out)
	var st *Status
	if !errors.As(err, &st) || st.Code != 9 || out.String() != "got TERM\n" {
		t.Errorf("after SIGTERM: %v, output %q; want the command's trap to run and exit 9", err, out.String())
	}
}

func TestPrintExports(t *testing.T) {
	t.Setenv("GOOGLE_API_KEY", "")
	t.Setenv("GEMINI_API_KEY", "")
	base := "http://127.0.0.1:1234"
	var replay, google, fake bytes.Buffer
	PrintExports(&replay, proxy.Config{Mode: proxy.ModeReplay}, base)
	if !strings.Contains(replay.String(), "export GOOGLE_GEMINI_BASE_URL="+base+"\nexport GOOGLE_VERTEX_BASE_URL="+base+"\n") || !strings.Contains(replay.String(), "replay sends no key anywhere") {
		t.Errorf("replay's exports:\n%s", replay.String())
	}
	PrintExports(&google, proxy.Config{Mode: proxy.ModeRecord}, base)
	if strings.Contains(google.String(), "GOOGLE_API_KEY") {
		t.Errorf("recording from Google's API exports a made-up key:\n%s", google.String())
	}
	up, _ := url.Parse("http://127.0.0.1:9")
	PrintExports(&fake, proxy.Config{Mode: proxy.ModeRecord, Upstream: up}, base)
	if !strings.Contains(fake.String(), "it is not Google's") {
		t.Errorf("recording from a fake:\n%s", fake.String())
	}
}
