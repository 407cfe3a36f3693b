// benchtool missrss: replay's peak memory under concurrent large misses.

package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/wire"
)

// missRSS measures adkproxy replay's peak resident memory while -c clients
// at once send a large request that matches no recording: its body a
// -mib MiB conversation of many short turns (the costliest kind to
// compare) against a cassette holding one short call. Not part of make
// bench; it reproduces the figure of issue 11 (8 concurrent 62 MB misses).
func missRSS(args []string) error {
	fl := flag.NewFlagSet("missrss", flag.ContinueOnError)
	bin := fl.String("bin", "bin/adkproxy", "adkproxy `BINARY`")
	mib := fl.Int("mib", 16, "request body size in `MiB`")
	conc := fl.Int("c", 8, "concurrent requests")
	if err := fl.Parse(args); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "adkproxy-missrss-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	const path = "/v1beta/models/gemini-2.5-flash:generateContent"
	x := &cassettes.Exchange{
		Request:  cassettes.Request{Method: "POST", Path: path, Body: []byte(`{"contents":[{"role":"user","parts":[{"text":"hello there"}]}]}`)},
		Response: cassettes.Response{Status: 200, Body: []byte(`{"candidates":[{"content":{"parts":[{"text":"hi"}],"role":"model"}}]}`)},
	}
	if err := cassettes.Save(filepath.Join(tmp, "default.yaml"), &cassettes.Cassette{Name: "default", Exchanges: []*cassettes.Exchange{x}, Trajectories: wire.StepOf}, nil); err != nil {
		return err
	}
	var body bytes.Buffer
	body.WriteString(`{"contents":[`)
	for i := 0; body.Len() < *mib<<20; i++ {
		if i > 0 {
			body.WriteByte(',')
		}
		fmt.Fprintf(&body, `{"role":"user","parts":[{"text":"message %d"}]}`, i)
	}
	body.WriteString(`]}`)

	proc, err := startAdkproxy(*bin, tmp, "replay", "--cassettes", tmp, "--max-body", fmt.Sprint(body.Len()+1))
	if err != nil {
		return err
	}
	defer proc.stop()
	base, err := proc.peakRSS()
	if err != nil {
		return err
	}
	var wg sync.WaitGroup
	errs := make(chan error, *conc)
	for range *conc {
		wg.Go(func() {
			resp, err := http.Post(proc.URL+path, "application/json", bytes.NewReader(body.Bytes()))
			if err != nil {
				errs <- err
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusBadRequest {
				errs <- fmt.Errorf("status %d; want 400 (no recording matches)", resp.StatusCode)
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return err
	}
	peak, err := proc.peakRSS()
	if err != nil {
		return err
	}
	fmt.Printf("%d concurrent %d MiB misses: idle %d MB, peak %d MB\n", *conc, *mib, base/1024, peak/1024)
	return nil
}
