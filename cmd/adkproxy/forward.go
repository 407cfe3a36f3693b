// The CLI side of the forward proxy: its flags, the CA it
// needs, and the environment that points a wrapped command at it.

package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/adkproxy/adkproxy/internal/base/ca"
	"github.com/adkproxy/adkproxy/internal/base/proxyopt"
	"github.com/adkproxy/adkproxy/proxy"
	"github.com/urfave/cli/v2"
)

// forwardFlags are shared by record and replay.
func forwardFlags() []cli.Flag {
	return []cli.Flag{
		caDirFlag(),
		&cli.StringSliceFlag{Name: "tunnel", Usage: "pass CONNECT to `HOST` (or *.domain) through untouched and never record it, e.g. oauth2.googleapis.com; replay refuses it (repeatable)", EnvVars: envFor("tunnel")},
		boolFlag("no-forward-proxy", "serve base-URL traffic only: no HTTPS_PROXY interception, no CA, no proxy or CA variables for COMMAND"),
	}
}

// routeFlags are record's: replay connects to nothing.
func routeFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "connect-to", Usage: "`RULE` HOST:PORT=ADDR:PORT: dial ADDR:PORT for requests to HOST:PORT, keeping HOST for TLS and matching, like curl's --connect-to (Gemini and tool hosts; repeatable)", EnvVars: envFor("connect-to")},
		stringFlag("upstream-ca", "", "also trust the CA certificates in PEM `FILE` for upstream servers (Gemini and tool hosts)"),
		&cli.StringSliceFlag{Name: "forward-allow-local", Usage: "let peers off loopback reach `HOST` (or *.domain) through the forward proxy although it is this machine's loopback, link-local (169.254.0.0/16, cloud metadata) or own address (repeatable)", EnvVars: envFor("forward-allow-local")},
	}
}

// forwarding is the forward proxy's state for one run; nil when it is off.
type forwarding struct {
	auth *ca.Authority
}

// setupForwarding reads the routing and forward-proxy flags into cfg and,
// unless --no-forward-proxy, loads the CA, creating it on first use. A
// broken CA is an error (exit 65), never replaced.
func setupForwarding(c *cli.Context, cfg *proxy.Config) (*forwarding, error) {
	for _, v := range c.StringSlice("connect-to") {
		rule, err := parseConnectTo(v)
		if err != nil {
			return nil, usageErrorf("--connect-to: %v", err)
		}
		cfg.ConnectTo = append(cfg.ConnectTo, rule)
	}
	if f := c.String("upstream-ca"); f != "" {
		roots, err := loadUpstreamCA(f)
		if err != nil {
			return nil, usageErrorf("--upstream-ca: %v", err)
		}
		cfg.UpstreamRoots = roots
	}
	tunnels, allowLocal := c.StringSlice("tunnel"), c.StringSlice("forward-allow-local")
	for _, t := range tunnels {
		if err := proxyopt.CheckHostPattern(t); err != nil {
			return nil, usageErrorf("--tunnel: %v", err)
		}
	}
	for _, h := range allowLocal {
		if err := proxyopt.CheckHostPattern(h); err != nil {
			return nil, usageErrorf("--forward-allow-local: %v", err)
		}
	}
	if c.Bool("no-forward-proxy") {
		if len(tunnels) > 0 {
			return nil, usageErrorf("--tunnel needs the forward proxy; drop --no-forward-proxy or --tunnel")
		}
		return nil, nil
	}
	dir, err := caDir(c)
	if err != nil {
		return nil, err
	}
	auth, created, err := ca.Ensure(dir)
	if err != nil {
		return nil, caError(err)
	}
	if created {
		fmt.Fprintf(c.App.ErrWriter, "adkproxy: created a local CA in %s to intercept HTTPS through HTTPS_PROXY (trust %s; see 'adkproxy ca --help')\n", dir, auth.CertPath)
	}
	cfg.Forward = &proxy.ForwardProxy{Leaf: auth.Leaf, Tunnel: tunnels, AllowLocal: allowLocal}
	return &forwarding{auth: auth}, nil
}

// defaultNoProxy keeps loopback (the base URL among it) off the proxy.
const defaultNoProxy = "localhost,127.0.0.1,::1"

// childEnv adds the proxy and trust variables to env for the wrapped
// command: a bundle of the system roots plus the CA is written for the run;
// call done once the command has exited to remove it.
func (f *forwarding) childEnv(env []string, proxyURL string) (out []string, done func(), err error) {
	if f == nil {
		return env, func() {}, nil
	}
	bundle, err := f.auth.WriteBundle()
	if err != nil {
		return nil, nil, withCode(exitCantWrite, err)
	}
	noProxy := defaultNoProxy
	for _, v := range []string{os.Getenv("NO_PROXY"), os.Getenv("no_proxy")} {
		if v = strings.Trim(v, ", "); v != "" && !strings.Contains(","+noProxy+",", ","+v+",") {
			noProxy += "," + v
		}
	}
	env = append(env,
		"HTTPS_PROXY="+proxyURL, "https_proxy="+proxyURL,
		"HTTP_PROXY="+proxyURL, "http_proxy="+proxyURL,
		"NO_PROXY="+noProxy, "no_proxy="+noProxy,
		"SSL_CERT_FILE="+bundle.Path,
		"REQUESTS_CA_BUNDLE="+bundle.Path,
		"CURL_CA_BUNDLE="+bundle.Path,
		"GRPC_DEFAULT_SSL_ROOTS_FILE_PATH="+bundle.Path,
		// Node adds these to its own roots rather than replacing them.
		"NODE_EXTRA_CA_CERTS="+f.auth.CertPath,
	)
	return env, func() { bundle.Remove() }, nil
}

// printExports tells a user serving without a command how to use the proxy.
func (f *forwarding) printExports(w io.Writer, proxyURL string) {
	if f == nil {
		return
	}
	fmt.Fprintf(w, "export HTTPS_PROXY=%s HTTP_PROXY=%s NO_PROXY=%s\n", proxyURL, proxyURL, defaultNoProxy)
	fmt.Fprintf(w, "export NODE_EXTRA_CA_CERTS=%s  # and add it to SSL_CERT_FILE's bundle for other clients\n", f.auth.CertPath)
}
