// Command fakegemini serves the scripted fake Gemini API on a loopback
// address, for recording example cassettes and for tests in other languages.
//
//	fakegemini -listen 127.0.0.1:0 -addr-file /tmp/addr
package main

import (
	"flag"
	"log"
	"net"
	"net/http"
	"os"

	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "address to listen on")
	addrFile := flag.String("addr-file", "", "file to write the actual address to")
	flag.Parse()
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatal(err)
	}
	if *addrFile != "" {
		if err := os.WriteFile(*addrFile, []byte(ln.Addr().String()+"\n"), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	log.Printf("fakegemini listening on http://%s", ln.Addr())
	log.Fatal(http.Serve(ln, &fakegemini.Handler{}))
}
