package adkproxytest_test

import (
	"bufio"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/adkproxytest"
)

// TestCloseLeavesNoListeningPortWaiting: when a proxy closes, its clients
// hang up first, so the connection's minute in TIME_WAIT is spent on the
// client's port and not on the proxy's listening port, which every later
// test's proxy would otherwise have to search past to find a free one
// (a suite's Starts slowed down by the tests before them).
func TestCloseLeavesNoListeningPortWaiting(t *testing.T) {
	if _, err := os.Stat("/proc/net/tcp"); err != nil {
		t.Skip("needs Linux's /proc/net/tcp")
	}
	dir, name := recordCase(t, "What is the weather in Paris?")
	t.Setenv("GOOGLE_API_KEY", "")
	ports := map[int]bool{}
	for range 10 {
		p, err := adkproxytest.New(dir, name, adkproxytest.Record(false))
		if err != nil {
			t.Fatal(err)
		}
		if got, err := ask(t, p, "What is the weather in Paris?"); err != nil || got != scriptedAnswer {
			t.Fatalf("replay answered %q, %v", got, err)
		}
		u, err := url.Parse(p.URL)
		if err != nil {
			t.Fatal(err)
		}
		port, err := strconv.Atoi(u.Port())
		if err != nil {
			t.Fatal(err)
		}
		ports[port] = true
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if n := timeWaitingOn(t, ports); n > 0 {
		t.Errorf("%d of 10 closed proxies left their listening port in TIME_WAIT", n)
	}
}

// timeWaitingOn counts the loopback IPv4 sockets in TIME_WAIT whose local
// port is one of ports.
func timeWaitingOn(t *testing.T, ports map[int]bool) int {
	f, err := os.Open("/proc/net/tcp")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 4 || fields[3] != "06" { // 06: TIME_WAIT
			continue
		}
		_, hexPort, ok := strings.Cut(fields[1], ":")
		if !ok {
			continue
		}
		port, err := strconv.ParseInt(hexPort, 16, 32)
		if err == nil && ports[int(port)] {
			n++
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}
