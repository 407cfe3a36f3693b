package proxy

import (
	"context"
	"net"
	"strings"
	"testing"
)

// TestGuardedDialChecksTheAddressDialled: the second check, for a name that
// resolved to another host when it was looked up and to this machine when
// it is dialled (DNS rebinding), is made on the address the dialer
// connects to, whatever name it was given.
func TestGuardedDialChecksTheAddressDialled(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	d := newDialer(nil)
	guarded := context.WithValue(context.Background(), guardKey{}, true)
	for _, addr := range []string{"localhost:" + port, "127.0.0.1:" + port} {
		if c, err := d.DialContext(guarded, "tcp", addr); err == nil || !strings.Contains(err.Error(), allowLocalFlag) {
			if c != nil {
				c.Close()
			}
			t.Errorf("guarded dial of %s: %v, want a refusal naming %s", addr, err, allowLocalFlag)
		}
	}
	c, err := d.DialContext(context.Background(), "tcp", "127.0.0.1:"+port)
	if err != nil {
		t.Fatalf("unguarded dial: %v", err)
	}
	c.Close()
}
