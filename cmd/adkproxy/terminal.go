// Terminal niceties: colour on the lines that carry a verdict, and a
// one-line progress indicator for slow work. Both only on a terminal, so
// pipes, files and CI logs get plain text.

package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/adkproxy/adkproxy/matcher"
	"github.com/adkproxy/adkproxy/proxy"
)

// isTerminal says whether w is a character device: a terminal, in
// practice (or /dev/null, where colour does no harm).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// palette colours text for one writer; the zero value leaves it plain.
type palette struct{ on bool }

// paletteFor colours only a terminal, and never with NO_COLOR set
// (https://no-color.org) or on a dumb terminal.
func paletteFor(w io.Writer) palette {
	return palette{on: isTerminal(w) && os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"}
}

func (p palette) paint(code, s string) string {
	if !p.on || s == "" {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

func (p palette) red(s string) string    { return p.paint("1;31", s) }
func (p palette) yellow(s string) string { return p.paint("33", s) }
func (p palette) green(s string) string  { return p.paint("32", s) }

// summary paints a run's summary (proxy.Summary) by what each line
// tells: the counts red when the run failed, yellow when something was
// served anyway or refused, else green; and the outcome of each listed
// request.
func (p palette) summary(lines []proxy.SummaryLine, failed bool) string {
	var b strings.Builder
	for i, l := range lines {
		text := l.Text
		switch {
		case i == 0 && failed:
			text = p.red(text)
		case i == 0 && l.Caution:
			text = p.yellow(text)
		case i == 0:
			text = p.green(text)
		case l.Outcome != "":
			paint := p.red
			if l.Outcome == matcher.OutcomeUnused && !failed || l.Caution {
				paint = p.yellow
			}
			label := string(l.Outcome)
			text = "  " + paint(label) + strings.TrimPrefix(text, "  "+label)
		}
		b.WriteString(text + "\n")
	}
	return b.String()
}

// progress shows "label… 3s" on the last line of a terminal while slow
// work runs; work that ends within its first second shows nothing.
type progress struct {
	w     io.Writer
	label string
	done  chan struct{}
	wg    sync.WaitGroup
}

// startProgress starts the indicator on w when w is a terminal; call the
// returned stop when the work is done (it clears the line).
func startProgress(w io.Writer, label string) (stop func()) {
	if !isTerminal(w) {
		return func() {}
	}
	return newProgress(w, label, time.Second, 250*time.Millisecond)
}

// newProgress draws on w, whatever it is, after a delay and then at every
// tick, until stop.
func newProgress(w io.Writer, label string, after, every time.Duration) (stop func()) {
	p := &progress{w: w, label: label, done: make(chan struct{})}
	p.wg.Add(1)
	go p.run(after, every)
	var once sync.Once
	return func() {
		once.Do(func() {
			close(p.done)
			p.wg.Wait()
		})
	}
}

func (p *progress) run(after, every time.Duration) {
	defer p.wg.Done()
	start := time.Now()
	select {
	case <-p.done:
		return
	case <-time.After(after):
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		fmt.Fprintf(p.w, "\r\x1b[K%s… %ds", p.label, int(time.Since(start).Seconds()))
		select {
		case <-p.done:
			fmt.Fprint(p.w, "\r\x1b[K") // the line is free again for what follows
			return
		case <-tick.C:
		}
	}
}
