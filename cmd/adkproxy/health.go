// adkproxy health: asks a running adkproxy whether it is serving, for
// container health checks (a distroless image has no curl).

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/adkproxy/adkproxy/internal/base/proxyopt"
	"github.com/urfave/cli/v2"
)

func healthCommand() *cli.Command {
	return &cli.Command{
		Name:  "health",
		Usage: "check that an adkproxy is serving (exit 0) or not (exit 1), for container health checks",
		Description: "Sends GET /_adkproxy/health to the adkproxy at --url and prints its answer. Without --url\n" +
			"(or ADKPROXY_URL) it asks the address in ADKPROXY_LISTEN, with 0.0.0.0 or :: read as\n" +
			"127.0.0.1, else " + DefaultListen + ": inside a container it checks the proxy beside it.\n\n" +
			"EXIT STATUS:\n   0    the proxy answered ok\n   1    it did not (not listening, refused, or an error)\n   64   usage error",
		Flags: []cli.Flag{
			stringFlag("url", "", "base `URL` of the adkproxy to check (default: from ADKPROXY_LISTEN, else http://"+DefaultListen+")"),
			stringFlag("control-token", "", "send `TOKEN` as a bearer token (needed from another machine when the proxy has --control-token)"),
			&cli.DurationFlag{Name: "timeout", Value: 5 * time.Second, Usage: "give up after `DURATION`", EnvVars: envFor("timeout")},
		},
		Action:       runHealth,
		OnUsageError: commandUsageError,
	}
}

func runHealth(c *cli.Context) error {
	if c.Args().Present() {
		return usageErrorf("health takes no arguments, got %q; give the proxy's address with --url", c.Args().First())
	}
	base := c.String("url")
	if base == "" {
		base = localAddress(os.Getenv("ADKPROXY_LISTEN"))
	}
	if !strings.Contains(base, "://") {
		base = "http://" + base // HOST:PORT, as --listen takes it
	}
	req, err := http.NewRequestWithContext(c.Context, http.MethodGet, strings.TrimSuffix(base, "/")+proxyopt.ControlHealth, nil)
	if err != nil {
		return usageErrorf("--url %q: %v", base, err)
	}
	if token := c.String("control-token"); token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	client := &http.Client{Timeout: c.Duration("timeout")}
	resp, err := client.Do(req)
	if err != nil {
		return withCode(exitFailure, fmt.Errorf("unhealthy: %v", err))
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var h struct{ Status, Mode, Cassette string }
	if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &h) != nil || h.Status != "ok" {
		return withCode(exitFailure, fmt.Errorf("unhealthy: %s answered %s: %s", req.URL, resp.Status, strings.TrimSpace(string(body))))
	}
	fmt.Fprintf(c.App.Writer, "ok: adkproxy %s at %s (default cassette %q)\n", h.Mode, base, h.Cassette)
	return nil
}

// localAddress is where a process beside the proxy reaches it, given the
// address the proxy listens on: a wildcard host becomes 127.0.0.1.
func localAddress(listen string) string {
	if listen == "" {
		return DefaultListen
	}
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return listen
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}
