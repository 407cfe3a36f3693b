package proxy_test

import "github.com/adkproxy/adkproxy/proxy"

// withHints is cfg with the hints adkproxy's own programs give.
func withHints(cfg proxy.Config, h proxy.Hints) proxy.Config {
	cfg.Hints = h
	return cfg
}
