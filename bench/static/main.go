// Command static is the benchmark's physical limit: a minimal net/http
// server that reads each request body and answers with fixed bytes, the
// 2 KB generateContent JSON or, on :streamGenerateContent paths, the
// 20-event SSE stream. It is also the fake upstream adkproxy records from.
//
// -stream says how the stream goes out: "event", one write and flush per
// event as the live API sends it (the upstream for recording), or "whole",
// all events in one go as a replay with nothing to wait for sends it (the
// limit for replay).
//
//	static -addr-file FILE [-listen 127.0.0.1:0] [-stream event|whole]
package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"strconv"
	"strings"

	"github.com/adkproxy/adkproxy/bench/harness"
	"github.com/adkproxy/adkproxy/internal/testing/workload"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "loopback `ADDR` to listen on")
	addrFile := flag.String("addr-file", "", "write the address listened on to `FILE`")
	stream := flag.String("stream", "event", "send an SSE stream one `event` at a time, flushing each, or `whole`")
	flag.Parse()
	if *stream != "event" && *stream != "whole" {
		log.Fatalf("-stream %q: want event or whole", *stream)
	}
	if err := harness.ServeLoopback(*listen, *addrFile, handler(*stream == "event")); err != nil {
		log.Fatal(err)
	}
}

func handler(flushEachEvent bool) http.Handler {
	jsonBody := workload.JSONResponse()
	jsonLen := strconv.Itoa(len(jsonBody))
	events := workload.SSEEventList()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			http.Error(w, fmt.Sprintf("reading the body: %v", err), http.StatusBadRequest)
			return
		}
		h := w.Header()
		h["Date"] = nil // adkproxy's replay sends none either
		if strings.HasSuffix(r.URL.Path, ":streamGenerateContent") {
			h.Set("Content-Type", workload.SSEContentType)
			w.WriteHeader(http.StatusOK)
			f := w.(http.Flusher)
			for _, ev := range events {
				w.Write(ev)
				if flushEachEvent {
					f.Flush()
				}
			}
			return
		}
		h.Set("Content-Type", workload.JSONContentType)
		h.Set("Content-Length", jsonLen)
		w.WriteHeader(http.StatusOK)
		w.Write(jsonBody)
	})
}
