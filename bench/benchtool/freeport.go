// benchtool freeport: a free loopback port for scripts/bench.sh to start the peers on.

package main

import (
	"fmt"
	"net"
)

// freePort prints a TCP port that is free on 127.0.0.1 right now.
func freePort([]string) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	defer ln.Close()
	fmt.Println(ln.Addr().(*net.TCPAddr).Port)
	return nil
}
