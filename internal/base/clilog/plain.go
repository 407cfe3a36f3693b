// The plain format: log records written like adkproxy's other stderr
// lines, for people at a terminal.

package clilog

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"strings"
)

// plainHandler writes "adkproxy: [warning: ]message key=value ..." with
// multi-line values as indented lines under it, as the summary and error
// lines are written: no time, no level for information.
type plainHandler struct {
	level slog.Leveler
	out   *output
	attrs []slog.Attr
}

func (h *plainHandler) Enabled(_ context.Context, l slog.Level) bool {
	return l >= h.level.Level()
}

func (h *plainHandler) Handle(_ context.Context, r slog.Record) error {
	var b, lines strings.Builder
	b.WriteString("adkproxy: ")
	switch {
	case r.Level >= slog.LevelError:
		b.WriteString("error: ")
	case r.Level >= slog.LevelWarn:
		b.WriteString("warning: ")
	}
	b.WriteString(printable(strings.ReplaceAll(r.Message, "\n", " ")))
	write := func(a slog.Attr) bool {
		v := a.Value.Resolve().String()
		if multiLine(a) {
			lines.WriteString("  " + a.Key + ": " + strings.ReplaceAll(printable(strings.TrimRight(v, "\n")), "\n", "\n    ") + "\n")
			return true
		}
		if v == "" || strings.ContainsAny(v, " \"=\t") || printable(v) != v {
			v = strconv.Quote(v)
		}
		b.WriteString(" " + a.Key + "=" + v)
		return true
	}
	for _, a := range h.attrs {
		write(a)
	}
	r.Attrs(write)
	b.WriteByte('\n')
	b.WriteString(lines.String())
	h.out.mu.Lock()
	defer h.out.mu.Unlock()
	_, err := io.WriteString(h.out.w, b.String())
	return err
}

func (h *plainHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &plainHandler{level: h.level, out: h.out, attrs: append(append([]slog.Attr(nil), h.attrs...), attrs...)}
}

func (h *plainHandler) WithGroup(string) slog.Handler { return h } // adkproxy logs no groups

// Without returns l minus the records drop picks (what will be said
// elsewhere, once).
func Without(l *slog.Logger, drop func(slog.Record) bool) *slog.Logger {
	return slog.New(&dropping{inner: l.Handler(), drop: drop})
}

type dropping struct {
	inner slog.Handler
	drop  func(slog.Record) bool
}

func (h *dropping) Enabled(ctx context.Context, l slog.Level) bool { return h.inner.Enabled(ctx, l) }

func (h *dropping) Handle(ctx context.Context, r slog.Record) error {
	if h.drop(r) {
		return nil
	}
	return h.inner.Handle(ctx, r)
}

func (h *dropping) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &dropping{inner: h.inner.WithAttrs(attrs), drop: h.drop}
}

func (h *dropping) WithGroup(name string) slog.Handler {
	return &dropping{inner: h.inner.WithGroup(name), drop: h.drop}
}
