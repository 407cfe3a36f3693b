// The timeout and connection-limit flags of record and replay, and their config.

package main

// Flags that bound what one client can hold: timeouts and --max-conns.

import (
	"github.com/adkproxy/adkproxy/internal/base/proxyopt"
	"github.com/adkproxy/adkproxy/proxy"
	"github.com/urfave/cli/v2"
)

// limitFlags are shared by record and replay.
func limitFlags() []cli.Flag {
	return []cli.Flag{
		&cli.DurationFlag{Name: "read-timeout", Value: proxyopt.DefaultReadTimeout, EnvVars: envFor("read-timeout"),
			Usage: "close a connection whose request (headers and body) has not arrived within `DURATION` (headers: at most 30s)"},
		&cli.DurationFlag{Name: "idle-timeout", Value: proxyopt.DefaultIdleTimeout, EnvVars: envFor("idle-timeout"),
			Usage: "close a keep-alive connection left without a request for `DURATION`"},
		&cli.DurationFlag{Name: "write-timeout", Value: proxyopt.DefaultWriteTimeout, EnvVars: envFor("write-timeout"),
			Usage: "cut a client that has not taken a non-streaming answer within `DURATION` (streams are exempt)"},
		&cli.IntFlag{Name: "max-conns", Value: proxyopt.DefaultMaxConns, EnvVars: envFor("max-conns"),
			Usage: "answer connections beyond `N` open ones with a 503 UNAVAILABLE error"},
	}
}

// upstreamHeaderTimeoutFlag is record's: replay has no upstream.
func upstreamHeaderTimeoutFlag() cli.Flag {
	return &cli.DurationFlag{Name: "upstream-header-timeout", Value: proxyopt.DefaultUpstreamHeaderTimeout, EnvVars: envFor("upstream-header-timeout"),
		Usage: "answer 502 when the upstream has not sent its status and headers within `DURATION` (a non-streaming call's whole generation comes first)"}
}

// limitsFrom reads the limit flags, refusing values that are not positive.
func limitsFrom(c *cli.Context, mode proxy.Mode) (proxy.Limits, error) {
	l := proxy.Limits{
		ReadTimeout:  c.Duration("read-timeout"),
		IdleTimeout:  c.Duration("idle-timeout"),
		WriteTimeout: c.Duration("write-timeout"),
		MaxConns:     c.Int("max-conns"),
	}
	durations := map[string]bool{"read-timeout": l.ReadTimeout > 0, "idle-timeout": l.IdleTimeout > 0, "write-timeout": l.WriteTimeout > 0}
	if mode == proxy.ModeRecord {
		l.UpstreamHeaderTimeout = c.Duration("upstream-header-timeout")
		durations["upstream-header-timeout"] = l.UpstreamHeaderTimeout > 0
	}
	for _, name := range []string{"read-timeout", "idle-timeout", "write-timeout", "upstream-header-timeout"} {
		if ok, checked := durations[name]; checked && !ok {
			return l, usageErrorf("--%s must be a positive duration such as 30s or 2m", name)
		}
	}
	if l.MaxConns <= 0 {
		return l, usageErrorf("--max-conns must be a positive number of connections")
	}
	return l, nil
}
