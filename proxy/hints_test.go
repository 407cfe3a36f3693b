package proxy_test

import (
	"github.com/adkproxy/adkproxy/internal/engine/proxyopt"
	"github.com/adkproxy/adkproxy/proxy"
)

// withHints is cfg with the hints adkproxy's own programs give.
func withHints(cfg proxy.Config, h proxyopt.Hints) proxy.Config {
	proxyopt.SetHints(&cfg, h)
	return cfg
}
