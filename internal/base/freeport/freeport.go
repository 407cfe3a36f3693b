// Package freeport picks a loopback TCP port for a server that adkproxy
// (or a test) starts and then reaches by number: an ADK API server under
// conformance, a server wrapped in a test.
//
// A port taken from a listener on port 0 and closed again is in the
// kernel's ephemeral range, from which the next listener on port 0, or the
// next outgoing connection, may be handed the same port before the server
// binds it; the server then fails to start, or a stranger answers in its
// place (seen with tests in parallel: a scripted Gemini answered an ADK
// API server's list-apps). A port below that range is never handed out by
// the kernel, so only a process that asks for it by number can take it.
package freeport

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
)

// lowest is the lowest port Pick chooses: above the ports services are
// usually configured on.
const lowest = 20000

// Pick returns a TCP port on 127.0.0.1 that was free a moment ago, chosen
// at random below the kernel's ephemeral range. Where that range leaves no
// room below it, or no port there is free after a few tries, it falls back
// to one the kernel picks.
func Pick() (int, error) {
	first, _ := ephemeralRange()
	for range 64 {
		if first <= lowest {
			break
		}
		port := lowest + rand.IntN(first-lowest)
		if l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port)); err == nil {
			l.Close()
			return port, nil
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("no free loopback port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// ephemeralRange is the kernel's range of ports it hands out itself
// (Linux: /proc/sys/net/ipv4/ip_local_port_range; elsewhere IANA's
// 49152–65535).
func ephemeralRange() (first, last int) {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			first, err1 := strconv.Atoi(f[0])
			last, err2 := strconv.Atoi(f[1])
			if errors.Join(err1, err2) == nil && first > 0 && first <= last {
				return first, last
			}
		}
	}
	return 49152, 65535
}
