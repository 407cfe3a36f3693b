// Command revproxy is the recording table's reference forwarder: the
// plainest correct Go forwarder, net/http/httputil.ReverseProxy, with a
// transport tuned for one loopback upstream (enough idle connections for
// every client, no compression, no proxy from the environment). It keeps
// nothing, so it is the peer of `adkproxy record --mode passthrough`.
// ReverseProxy flushes an SSE answer's writes at once, so its events pass
// one by one, as adkproxy passes them.
//
//	revproxy -upstream URL -addr-file FILE [-listen 127.0.0.1:0]
package main

import (
	"bytes"
	"flag"
	"io"
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
		Rewrite: func(r *httputil.ProxyRequest) { r.SetURL(target) },
		Transport: &http.Transport{
			DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			MaxIdleConns:        256,
			MaxIdleConnsPerHost: 256,
			IdleConnTimeout:     90 * time.Second,
			DisableCompression:  true,
			ForceAttemptHTTP2:   false,
		},
	}
	if err := harness.ServeLoopback(*listen, *addrFile, bodyFirst(rp)); err != nil {
		log.Fatal(err)
	}
}

// bodyFirst reads the request body before forwarding, as adkproxy does.
// With the incoming body streamed through, SSE runs broke at random (the
// upstream connection closed mid-answer, "use of closed network
// connection"); reading it first is also what a forwarder that inspects
// JSON requests does.
func bodyFirst(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, "reading the body: "+err.Error(), http.StatusBadRequest)
			return
		}
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		next.ServeHTTP(w, r)
	})
}
