// benchtool recordrss: record's peak memory while recording one large answer.

package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// recordRSS measures adkproxy record's peak resident memory while it
// records one large answer: an in-process upstream answers a single
// generateContent call with an N-byte JSON body (chunked, no
// Content-Length, so the proxy cannot size its buffer up front), the
// client reads it through the proxy, and VmHWM is read before the request
// (the idle process) and after the answer (the peak while recording,
// journal fsync included), before the process is stopped. Each size gets
// a fresh process.
func recordRSS(args []string) error {
	fl := flag.NewFlagSet("recordrss", flag.ContinueOnError)
	bin := fl.String("bin", "bin/adkproxy", "adkproxy `BINARY`")
	sizes := fl.String("sizes-mib", "16,64", "answer sizes in `MiB`, comma-separated")
	reps := fl.Int("reps", 3, "repetitions")
	out := fl.String("out", "", "append results to `FILE`")
	if err := fl.Parse(args); err != nil {
		return err
	}
	for rep := 1; rep <= *reps; rep++ {
		for _, s := range strings.Split(*sizes, ",") {
			mib, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil || mib <= 0 {
				return fmt.Errorf("-sizes-mib: %q is not a positive number", s)
			}
			base, peak, err := recordOnce(*bin, mib<<20)
			if err != nil {
				return fmt.Errorf("%d MiB: %v", mib, err)
			}
			n := float64(int64(mib) << 20)
			if err := appendResult(*out, Measurement{Kind: "recordrss",
				Tags: map[string]string{"set": strconv.Itoa(mib) + "MiB", "rep": strconv.Itoa(rep)},
				Values: map[string]float64{
					"answer_mb": n / (1 << 20),
					"base_mb":   float64(base) / 1024,
					"peak_mb":   float64(peak) / 1024,
					"ratio":     float64(peak-base) * 1024 / n,
				}}); err != nil {
				return err
			}
		}
	}
	return nil
}

// recordOnce returns the VmHWM (KiB) of a fresh adkproxy record before and
// after it recorded one answer of n bytes.
func recordOnce(bin string, n int) (base, peak int64, err error) {
	chunk := bytes.Repeat([]byte("x"), 1<<20)
	head, tail := []byte(`{"candidates":[{"content":{"parts":[{"text":"`), []byte(`"}],"role":"model"},"finishReason":"STOP"}]}`)
	up := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		w.Write(head)
		for left := n - len(head) - len(tail); left > 0; left -= len(chunk) {
			w.Write(chunk[:min(left, len(chunk))])
		}
		w.Write(tail)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, 0, err
	}
	srv := &http.Server{Handler: up}
	go srv.Serve(ln)
	defer srv.Close()

	tmp, err := os.MkdirTemp("", "adkproxy-recordrss-")
	if err != nil {
		return 0, 0, err
	}
	defer os.RemoveAll(tmp)
	proc, err := startAdkproxy(bin, tmp, "record", "--cassettes", filepath.Join(tmp, "cassettes"),
		"--upstream", "http://"+ln.Addr().String(), "--max-body", strconv.Itoa(2*n))
	if err != nil {
		return 0, 0, err
	}
	defer proc.stop()
	if base, err = proc.peakRSS(); err != nil {
		return 0, 0, err
	}
	resp, err := http.Post(proc.URL+"/v1beta/models/gemini-2.5-flash:generateContent",
		"application/json", strings.NewReader(`{"contents":[{"role":"user","parts":[{"text":"a long answer, please"}]}]}`))
	if err != nil {
		return 0, 0, err
	}
	got, err := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 || got != int64(n) {
		return 0, 0, fmt.Errorf("status %d, %d of %d bytes, %v\n%s", resp.StatusCode, got, n, err, proc.stderr.Bytes())
	}
	peak, err = proc.peakRSS()
	return base, peak, err
}
