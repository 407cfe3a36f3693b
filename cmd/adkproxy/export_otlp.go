// The otlp-json format of 'adkproxy export': its flags and wiring; the
// traces themselves are otlpexport's.

package main

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/data/recorded"
	"github.com/adkproxy/adkproxy/internal/feature/report/otlpexport"
)

// exitUnavailable (EX_UNAVAILABLE): the OTLP collector could not be
// reached or did not take the traces.
const exitUnavailable = 69

// otlpPushTimeout bounds one push, answer included.
const otlpPushTimeout = 60 * time.Second

func otlpExportFlags() []cli.Flag {
	return append([]cli.Flag{
		stringFlag("otlp-endpoint", "", "send the traces over OTLP/HTTP to `URL` (POST URL/v1/traces as protobuf), e.g. http://localhost:4318; implies --format otlp-json"),
		stringFlag("trace-start", "", "`TIME` the first invocation of each cassette starts at in the traces: RFC 3339, or now (default 2000-01-01T00:00:00Z, so that an export is reproducible)"),
	}, outboundFlags()...)
}

// exportFormat is --format, or otlp-json when only --otlp-endpoint says
// what to write.
func exportFormat(c *cli.Context) (string, error) {
	f := c.String("format")
	if c.String("otlp-endpoint") != "" && !c.IsSet("format") {
		f = "otlp-json"
	}
	if f != "otlp-json" {
		for _, name := range []string{"otlp-endpoint", "trace-start"} {
			if c.String(name) != "" {
				return "", usageErrorf("export: --%s applies to --format otlp-json, not %s", name, f)
			}
		}
	}
	return f, nil
}

func exportOTLP(c *cli.Context, dir string, loaded map[string]*cassettes.Cassette) error {
	start, err := traceStart(c.String("trace-start"))
	if err != nil {
		return err
	}
	endpoint, out := c.String("otlp-endpoint"), c.String("out")
	if endpoint != "" {
		if u, err := url.Parse(endpoint); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return usageErrorf("export: --otlp-endpoint %s: want the collector's http:// or https:// base URL, such as http://localhost:4318", otlpexport.ShownURL(endpoint))
		}
	}
	req := otlpexport.Build(recorded.Build(dir, loaded), otlpexport.Options{Start: start})
	spans, traces := otlpexport.Count(req)
	if traces == 0 {
		return withCode(exitDataErr, fmt.Errorf("export: no recorded invocation in %s (%d cassette(s)); record one with 'adkproxy record --cassettes %s -- COMMAND'", dir, len(loaded), dir))
	}
	if endpoint == "" || out != "" {
		data, err := otlpexport.MarshalJSON(req)
		if err != nil {
			return fmt.Errorf("export: %w", err)
		}
		if err := writeOutput(c, out, data); err != nil {
			return err
		}
		if out != "" {
			fmt.Fprintf(c.App.ErrWriter, "adkproxy: wrote %d trace(s), %d span(s) as OTLP/JSON to %s\n", traces, spans, out)
		}
	}
	if endpoint == "" {
		return nil
	}
	policy, err := outboundPolicy(c)
	if err != nil {
		return err
	}
	client := policy.Client()
	client.Timeout = otlpPushTimeout
	if err := otlpexport.Push(c.Context, client, endpoint, req); err != nil {
		return withCode(exitUnavailable, fmt.Errorf("export: %w", err))
	}
	fmt.Fprintf(c.App.ErrWriter, "adkproxy: sent %d trace(s), %d span(s) to %s\n", traces, spans, otlpexport.ShownURL(otlpexport.TracesURL(endpoint)))
	return nil
}

// traceStart reads --trace-start: empty for otlpexport's fixed default,
// "now", or an RFC 3339 time.
func traceStart(s string) (time.Time, error) {
	switch {
	case s == "":
		return time.Time{}, nil
	case strings.EqualFold(s, "now"):
		return time.Now().UTC(), nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, usageErrorf("export: --trace-start %q: want an RFC 3339 time such as 2026-07-01T12:00:00Z, or now", s)
	}
	return t, nil
}
