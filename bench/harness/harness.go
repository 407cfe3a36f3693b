// Package harness is what the benchmark's programs share: serving on the
// loopback interface only, and reading the labels of a result.
package harness

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/adkproxy/adkproxy/cassettes"
)

// ServeLoopback serves h on listen, which must be a loopback address,
// writes the address it got to addrFile (when given; atomically, so a
// reader never sees half of it) and returns once SIGINT or SIGTERM comes.
func ServeLoopback(listen, addrFile string, h http.Handler) error {
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	if tcp, ok := ln.Addr().(*net.TCPAddr); !ok || !tcp.IP.IsLoopback() {
		ln.Close()
		return fmt.Errorf("refusing to listen on %s: the benchmark stays on loopback", ln.Addr())
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	served := make(chan error, 1)
	go func() { served <- http.Serve(ln, h) }()
	if addrFile != "" {
		if err := cassettes.WriteFileAtomic(addrFile, []byte(ln.Addr().String()+"\n")); err != nil {
			ln.Close()
			return err
		}
	}
	select {
	case <-stop:
		return nil
	case err := <-served:
		return err
	}
}

// ParseTags reads labels written "key=value,key=value".
func ParseTags(s string) map[string]string {
	m := map[string]string{}
	for _, kv := range strings.Split(s, ",") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return m
}
