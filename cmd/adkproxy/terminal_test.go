package main

import (
	"bytes"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adkproxy/adkproxy/matcher"
	"github.com/adkproxy/adkproxy/proxy"
)

// openTerminal opens a pseudo-terminal's master side: a real character
// device, as a terminal is.
func openTerminal(t *testing.T) *os.File {
	t.Helper()
	f, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal to test with: %v", err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func TestColourOnlyOnATerminalWithoutNO_COLOR(t *testing.T) {
	tty := openTerminal(t)
	t.Setenv("NO_COLOR", "")
	t.Setenv("TERM", "xterm-256color")
	if !paletteFor(tty).on {
		t.Error("no colour on a terminal")
	}
	if paletteFor(&bytes.Buffer{}).on {
		t.Error("colour on something that is not a terminal")
	}
	pipeR, pipeW, _ := os.Pipe()
	defer pipeR.Close()
	defer pipeW.Close()
	if paletteFor(pipeW).on {
		t.Error("colour on a pipe")
	}
	t.Setenv("NO_COLOR", "1")
	if paletteFor(tty).on {
		t.Error("colour with NO_COLOR set")
	}
	t.Setenv("NO_COLOR", "")
	t.Setenv("TERM", "dumb")
	if paletteFor(tty).on {
		t.Error("colour on TERM=dumb")
	}
}

// diff --color auto colours a terminal only, and never the --out file;
// always and never mean it.
func TestDiffColourChoice(t *testing.T) {
	tty := openTerminal(t)
	t.Setenv("NO_COLOR", "")
	t.Setenv("TERM", "xterm-256color")
	for _, tc := range []struct {
		when   string
		out    *os.File
		toFile bool
		want   bool
	}{{"auto", tty, false, true}, {"auto", tty, true, false},
		{"never", tty, false, false}, {"always", nil, true, true}} {
		if got := colorFor(tc.when, tc.out, tc.toFile); got != tc.want {
			t.Errorf("--color %s, to a file %v: %v", tc.when, tc.toFile, got)
		}
	}
	t.Setenv("NO_COLOR", "1")
	if colorFor("auto", tty, false) {
		t.Error("colour with NO_COLOR set")
	}
}

func TestSummaryColours(t *testing.T) {
	step := 0
	r := proxy.Report{Mode: "replay", Counts: map[matcher.OutcomeKind]int{matcher.OutcomeMatched: 1, matcher.OutcomeMismatched: 1, matcher.OutcomeUnused: 1}, Outcomes: []matcher.Outcome{
		{Outcome: matcher.OutcomeMismatched, Method: "POST", Path: "/p", Step: &step, Message: "differs"},
		{Outcome: matcher.OutcomeUnused, Cassette: "other", Method: "POST", Path: "/p", Message: "never requested"},
	}}
	lines := proxy.Summary(r, proxy.Stats{}, "")
	text := palette{}.summary(lines, true)
	if want := "adkproxy: replayed 2 request(s): 1 matched, 1 mismatched, 0 unmatched, 1 recording(s) unused\n  mismatched POST /p: differs\n  unused POST /p: never requested\n"; text != want {
		t.Errorf("plain palette changed the summary:\n%q\n%q", text, want)
	}
	got := palette{on: true}.summary(lines, true)
	painted := strings.Split(got, "\n")
	if !strings.HasPrefix(painted[0], "\x1b[1;31madkproxy: replayed") || !strings.HasSuffix(painted[0], "\x1b[0m") {
		t.Errorf("a failed run's count line is not red: %q", painted[0])
	}
	if !strings.HasPrefix(painted[1], "  \x1b[1;31mmismatched\x1b[0m POST /p") || !strings.HasPrefix(painted[2], "  \x1b[1;31munused\x1b[0m") {
		t.Errorf("labels not red in a failed run:\n%q", got)
	}
	if plain := strings.NewReplacer("\x1b[1;31m", "", "\x1b[0m", "").Replace(got); plain != text {
		t.Errorf("colour changed the text:\n%q\n%q", plain, text)
	}
	clean := proxy.Summary(proxy.Report{Mode: "replay", Counts: map[matcher.OutcomeKind]int{matcher.OutcomeMatched: 2}}, proxy.Stats{}, "")
	if got := (palette{on: true}).summary(clean, false); !strings.HasPrefix(got, "\x1b[32m") {
		t.Errorf("a clean run's line is not green: %q", got)
	}
	lenient := proxy.Summary(proxy.Report{Mode: "replay", Counts: map[matcher.OutcomeKind]int{matcher.OutcomeMismatched: 1}, Outcomes: []matcher.Outcome{
		{Outcome: matcher.OutcomeMismatched, Method: "POST", Path: "/p", Step: &step, Served: true, Message: "differs"}}}, proxy.Stats{}, "")
	if got := (palette{on: true}).summary(lenient, false); !strings.HasPrefix(got, "\x1b[33madkproxy") || !strings.Contains(got, "\n  \x1b[33mmismatched\x1b[0m (served, lenient) POST /p") {
		t.Errorf("a lenient run's lines are not yellow: %q", got)
	}
}

// signalWriter is a buffer that says when it is first written to.
type signalWriter struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	written chan struct{}
	once    sync.Once
}

func (w *signalWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.once.Do(func() { close(w.written) })
	return w.buf.Write(p)
}

func (w *signalWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

func TestProgressDrawsOneLineAndClearsIt(t *testing.T) {
	w := &signalWriter{written: make(chan struct{})}
	stop := newProgress(w, "adkproxy: loading cassettes", 0, time.Millisecond)
	<-w.written
	stop()
	stop() // twice is harmless
	out := w.String()
	if !strings.HasPrefix(out, "\r\x1b[Kadkproxy: loading cassettes… 0s") || !strings.HasSuffix(out, "\r\x1b[K") || strings.Contains(out, "\n") {
		t.Errorf("progress wrote %q, want one redrawn line, cleared at the end", out)
	}

	quiet := &signalWriter{written: make(chan struct{})}
	newProgress(quiet, "fast work", time.Hour, time.Millisecond)()
	if quiet.String() != "" {
		t.Errorf("work that ended before the delay drew %q", quiet.String())
	}
	var buf bytes.Buffer
	startProgress(&buf, "not a terminal")()
	if buf.Len() != 0 {
		t.Errorf("progress on a buffer: %q", buf.String())
	}
}

// An error names files from the user's tree, and a pull request can name a
// cassette with escape sequences (a window title, an OSC 8 link, a bidi
// override): the error line keeps the name readable but loses the control
// and formatting characters, as ls does for the same name.
func TestErrorLineLosesControlCharacters(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	name := "a\x1b]0;PWNED\x07\u202eb\x1b]8;;https:evil.example\x1b\\c"
	if err := os.WriteFile(dir+"/"+name+".yaml", []byte("version: 2\nname: x\nsessions: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := adkproxy(t, nil, "export", "--cassettes", dir)
	if r.code != exitDataErr || !strings.Contains(r.stderr, "not valid YAML") || !strings.Contains(r.stderr, "PWNED") {
		t.Fatalf("exit %d, want 65 naming the corrupt cassette\nstderr: %q", r.code, r.stderr)
	}
	if strings.ContainsAny(r.stderr, "\x1b\x07\u202e") {
		t.Errorf("the error line keeps control characters: %q", r.stderr)
	}
}
