package freeport

import (
	"net"
	"strconv"
	"testing"
)

// A picked port is below the kernel's ephemeral range, so no listener on
// port 0 can be handed it, and it can be bound.
func TestPickIsBelowTheEphemeralRange(t *testing.T) {
	first, _ := ephemeralRange()
	if first <= lowest {
		t.Skipf("the ephemeral range starts at %d: no room below it", first)
	}
	seen := map[int]bool{}
	for range 20 {
		port, err := Pick()
		if err != nil {
			t.Fatal(err)
		}
		if port < lowest || port >= first {
			t.Fatalf("picked %d, want one in [%d, %d)", port, lowest, first)
		}
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err != nil {
			t.Fatalf("picked %d, which cannot be bound: %v", port, err)
		}
		l.Close()
		seen[port] = true
	}
	if len(seen) < 10 {
		t.Errorf("20 picks gave %d ports: they should be spread at random", len(seen))
	}
}

// While something holds a picked port, Pick does not return it.
func TestPickSkipsABoundPort(t *testing.T) {
	var held []net.Listener
	defer func() {
		for _, l := range held {
			l.Close()
		}
	}()
	taken := map[int]bool{}
	for range 30 {
		port, err := Pick()
		if err != nil {
			t.Fatal(err)
		}
		if taken[port] {
			t.Fatalf("Pick returned %d, which is bound", port)
		}
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, l)
		taken[port] = true
	}
}
