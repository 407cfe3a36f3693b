// One failure, said once: with a wrapped command the summary at the end
// lists every request and recording at fault, so their log lines are left
// out of the run's stderr.

package main

import (
	"log/slog"
	"strings"

	"github.com/adkproxy/adkproxy/matcher"
	"github.com/urfave/cli/v2"
)

// logFormat is --log-format, by default plain on a terminal (like every
// other line adkproxy writes there) and text (logfmt) elsewhere.
func logFormat(c *cli.Context) string {
	switch {
	case c.IsSet("log-format"):
		return c.String("log-format")
	case isTerminal(c.App.ErrWriter):
		return "plain"
	}
	return "text"
}

// inTheSummary reports whether a log record tells of a request or
// recording that the end-of-run summary lists: a mismatched or unmatched
// request or Live frame (served leniently or not) and a recording never
// requested.
func inTheSummary(r slog.Record) bool {
	msg := r.Message
	return r.Level == slog.LevelWarn && (strings.HasPrefix(msg, string(matcher.OutcomeMismatched)+" ") ||
		strings.HasPrefix(msg, string(matcher.OutcomeUnmatched)+" ") || msg == "recording never requested" ||
		strings.HasSuffix(msg, "(lenient)"))
}
