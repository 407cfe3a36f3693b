// The loggers: slog's text handler wrapped to print multi-line values as
// lines, or slog's JSON handler.

package clilog

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"unicode"
)

// New returns a logger writing records of level and above to w in format
// "text" (logfmt), "plain" (as adkproxy's other lines, for a terminal) or
// "json". Errors name the value that is wrong and what is wanted.
func New(w io.Writer, format, level string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level must be debug, info, warn or error, not %q", level)
	}
	opts := &slog.HandlerOptions{Level: l}
	switch format {
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	case "text":
		return slog.New(&linesHandler{inner: slog.NewTextHandler(w, opts), out: &output{w: w}}), nil
	case "plain":
		return slog.New(&plainHandler{level: l, out: &output{w: w}}), nil
	}
	return nil, fmt.Errorf("--log-format must be plain, text or json, not %q", format)
}

// output is the writer every handler derived from one logger shares, with
// the lock that keeps a record and its lines together.
type output struct {
	mu sync.Mutex
	w  io.Writer
}

// linesHandler takes multi-line string values out of a record, lets the
// text handler write the rest as one logfmt line, then writes each taken
// value under it: "  key: first line", further lines indented by four.
type linesHandler struct {
	inner slog.Handler
	out   *output
	lines []slog.Attr // multi-line attributes given to With
}

func (h *linesHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.inner.Enabled(ctx, l)
}

func (h *linesHandler) Handle(ctx context.Context, r slog.Record) error {
	taken := append([]slog.Attr(nil), h.lines...)
	kept := slog.NewRecord(r.Time, r.Level, r.Message, r.PC)
	r.Attrs(func(a slog.Attr) bool {
		if multiLine(a) {
			taken = append(taken, a)
		} else {
			kept.AddAttrs(a)
		}
		return true
	})
	h.out.mu.Lock()
	defer h.out.mu.Unlock()
	if err := h.inner.Handle(ctx, kept); err != nil || len(taken) == 0 {
		return err
	}
	var b strings.Builder
	for _, a := range taken {
		b.WriteString("  " + a.Key + ": ")
		b.WriteString(strings.ReplaceAll(printable(strings.TrimRight(a.Value.String(), "\n")), "\n", "\n    "))
		b.WriteByte('\n')
	}
	_, err := io.WriteString(h.out.w, b.String())
	return err
}

func (h *linesHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	var kept []slog.Attr
	lines := append([]slog.Attr(nil), h.lines...)
	for _, a := range attrs {
		if multiLine(a) {
			lines = append(lines, a)
		} else {
			kept = append(kept, a)
		}
	}
	return &linesHandler{inner: h.inner.WithAttrs(kept), out: h.out, lines: lines}
}

func (h *linesHandler) WithGroup(name string) slog.Handler {
	return &linesHandler{inner: h.inner.WithGroup(name), out: h.out, lines: h.lines}
}

// printable keeps a value from driving the terminal: control characters
// other than new lines and tabs (an escape sequence in a request's text)
// become U+FFFD, as the text handler would have quoted them.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) && r != '\n' && r != '\t' {
			return unicode.ReplacementChar
		}
		return r
	}, s)
}

func multiLine(a slog.Attr) bool {
	return a.Value.Kind() == slog.KindString && strings.Contains(a.Value.String(), "\n")
}
