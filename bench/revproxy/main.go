// Command revproxy is the recording table's reference forwarder: the
// plainest correct Go forwarder, net/http/httputil.ReverseProxy, with a
// transport tuned for one loopback upstream (enough idle connections for
// every client, no compression, no proxy from the environment). It keeps
// nothing, so it is the peer of `adkproxy record --mode passthrough`.
// FlushInterval -1 flushes each write at once, so an SSE stream's events
// pass one by one, as adkproxy passes them.
//
//	revproxy -upstream URL -addr-file FILE [-listen 127.0.0.1:0]
package main

import (
	"flag"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"time"

	"github.com/adkproxy/adkproxy/bench/harness"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "loopback `ADDR` to listen on")
	addrFile := flag.String("addr-file", "", "write the address listened on to `FILE`")
	upstream := flag.String("upstream", "", "`URL` to forward to")
	flag.Parse()
	target, err := url.Parse(*upstream)
	if err != nil || target.Host == "" {
		log.Fatalf("-upstream %q: want an http://host:port URL", *upstream)
	}
	rp := &httputil.ReverseProxy{
		Rewrite:       func(r *httputil.ProxyRequest) { r.SetURL(target) },
		FlushInterval: -1,
		Transport: &http.Transport{
			DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			MaxIdleConns:        256,
			MaxIdleConnsPerHost: 256,
			IdleConnTimeout:     90 * time.Second,
			DisableCompression:  true,
			ForceAttemptHTTP2:   false,
		},
	}
	if err := harness.ServeLoopback(*listen, *addrFile, rp); err != nil {
		log.Fatal(err)
	}
}
