package testutil

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"
)

// Peer is another host for a server under test: a network namespace of its
// own, joined to this one by a veth pair whose two addresses the test
// chooses. A server listening on HostIP sees Peer's connections come from
// PeerIP, a real non-loopback address, while no packet leaves the machine.
type Peer struct {
	HostIP, PeerIP net.IP
	ns             string
}

// peerSubnet hands each Peer of a process its own /30, so that tests in
// parallel (and several test binaries: the pid picks the block) never share
// an address.
var peerSubnet atomic.Uint32

// NewPeer makes a Peer, removed when the test ends. Making a namespace needs
// root and ip(8): without them the test is skipped (failed under CI, which
// runs as root).
func NewPeer(t testing.TB) *Peer {
	t.Helper()
	if os.Geteuid() != 0 {
		Require(t, "root (to make a network namespace for a non-loopback peer)")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		Require(t, "ip(8) from iproute2 (to make a network namespace for a non-loopback peer)")
	}
	var id [4]byte
	rand.Read(id[:])
	tag := hex.EncodeToString(id[:])
	n := peerSubnet.Add(1)
	// 198.18.0.0/15 is set aside for tests between networks (RFC 2544);
	// the third and fourth bytes come from the pid and a counter.
	block := (uint32(os.Getpid())%64)*64 + n%64
	host := net.IPv4(198, 18+byte(block>>14&1), byte(block>>6), byte(block<<2&0xff)+1).To4()
	peer := net.IPv4(host[0], host[1], host[2], host[3]+1).To4()
	p := &Peer{HostIP: host, PeerIP: peer, ns: "adkp" + tag}
	hostIf, peerIf := "adkh"+tag, "adkp"+tag
	run := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	run("netns", "add", p.ns)
	t.Cleanup(func() { exec.Command("ip", "netns", "del", p.ns).Run() })
	run("link", "add", hostIf, "type", "veth", "peer", "name", peerIf, "netns", p.ns)
	t.Cleanup(func() { exec.Command("ip", "link", "del", hostIf).Run() })
	run("addr", "add", host.String()+"/30", "dev", hostIf)
	run("link", "set", hostIf, "up")
	run("-n", p.ns, "addr", "add", peer.String()+"/30", "dev", peerIf)
	run("-n", p.ns, "link", "set", peerIf, "up")
	run("-n", p.ns, "link", "set", "lo", "up")
	return p
}

// DialContext opens a connection from inside the peer's namespace. The
// socket is made on a thread that has joined the namespace and is never
// used for anything else (it ends with its goroutine).
func (p *Peer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	type result struct {
		c   net.Conn
		err error
	}
	done := make(chan result, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread dies with the goroutine
		f, err := os.Open("/var/run/netns/" + p.ns)
		if err != nil {
			done <- result{nil, err}
			return
		}
		defer f.Close()
		if err := unix.Setns(int(f.Fd()), unix.CLONE_NEWNET); err != nil {
			done <- result{nil, fmt.Errorf("joining namespace %s: %w", p.ns, err)}
			return
		}
		var d net.Dialer
		c, err := d.DialContext(ctx, network, addr)
		done <- result{c, err}
	}()
	r := <-done
	return r.c, r.err
}

// Client is an HTTP client whose connections come from the peer; proxy,
// when set, is used as its HTTP proxy (nil: none, whatever the environment
// says).
func (p *Peer) Client(proxy func(*http.Request) (*url.URL, error)) *http.Client {
	return &http.Client{Transport: &http.Transport{DialContext: p.DialContext, Proxy: proxy, DisableKeepAlives: true}}
}
