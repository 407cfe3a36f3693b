// Command loadgen drives a fixed number of keep-alive HTTP/1.1 requests at
// one loopback target and reports throughput and latency percentiles from
// per-request timings. Every response's status and body are checked
// against the bytes the target must serve, so a broken target cannot look
// fast: any failure makes loadgen exit 1.
//
//	loadgen -url http://127.0.0.1:PORT -payload json|sse|mix -c 16 -n 20000 -warmup 2000 \
//	        [-mix 10] [-distinct] [-tags target=static,rep=1] [-out results.jsonl]
//
// -distinct sends a different 2 KB first turn with every request
// (workload.TurnRequest), warm-up included, so no two calls share a
// session: what a recording proxy sees from a suite of independent
// conversations.
//
// Each worker owns one TCP connection and writes requests prepared up front;
// responses are parsed with net/http's reader, so chunked SSE streams and
// Content-Length bodies are both read to their end before the clock stops.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/adkproxy/adkproxy/bench/harness"
	"github.com/adkproxy/adkproxy/internal/testing/workload"
)

// call is one request as sent and the response it must get.
type call struct {
	raw    []byte // the whole HTTP/1.1 request
	status int
	body   []byte
}

type config struct {
	target   *url.URL
	payload  string
	mix      int
	distinct bool
	c        int
	n        int
	warmup   int
	headers  []string
	timeout  time.Duration
	maxTotal time.Duration
}

// Result is one run, as a JSON line in -out.
type Result struct {
	Tags        map[string]string `json:"tags"`
	Concurrency int               `json:"concurrency"`
	Requests    int               `json:"requests"`
	Seconds     float64           `json:"seconds"`
	RPS         float64           `json:"rps"`
	P50us       float64           `json:"p50_us"`
	P99us       float64           `json:"p99_us"`
	Meanus      float64           `json:"mean_us"`
	Reconnects  int64             `json:"reconnects"`
}

func main() {
	var cfg config
	rawURL := flag.String("url", "", "target base `URL` (loopback only), e.g. http://127.0.0.1:8080")
	flag.StringVar(&cfg.payload, "payload", "json", "json (2 KB answer), sse (20-event stream) or mix (-mix distinct requests, JSON answers)")
	flag.IntVar(&cfg.mix, "mix", 10, "number of distinct requests for -payload mix")
	flag.BoolVar(&cfg.distinct, "distinct", false, "json or sse: every request a different 2 KB first turn (a session of its own)")
	flag.IntVar(&cfg.c, "c", 1, "concurrent connections")
	flag.IntVar(&cfg.n, "n", 20000, "measured requests")
	flag.IntVar(&cfg.warmup, "warmup", 2000, "requests sent before measuring")
	flag.DurationVar(&cfg.timeout, "timeout", 10*time.Second, "limit for one request")
	flag.DurationVar(&cfg.maxTotal, "max-time", 10*time.Minute, "limit for the whole run")
	hdr := flag.String("header", "", "extra request header `NAME:VALUE`")
	tags := flag.String("tags", "", "comma-separated `k=v` labels copied into the result")
	out := flag.String("out", "", "append the result as a JSON line to `FILE`")
	writeReq := flag.String("write-request", "", "write the request body of -payload to `FILE` and exit")
	flag.Parse()

	if *writeReq != "" {
		if err := os.WriteFile(*writeReq, workload.Request(), 0o644); err != nil {
			fail(err)
		}
		return
	}
	u, err := url.Parse(*rawURL)
	if err != nil || u.Scheme != "http" || u.Host == "" {
		fail(fmt.Errorf("-url must be http://HOST:PORT, not %q", *rawURL))
	}
	if err := requireLoopback(u.Host); err != nil {
		fail(err)
	}
	cfg.target = u
	if *hdr != "" {
		cfg.headers = append(cfg.headers, *hdr)
	}
	if cfg.c < 1 || cfg.n < 1 || cfg.warmup < 0 {
		fail(errors.New("-c and -n must be at least 1, -warmup at least 0"))
	}
	calls, err := buildCalls(&cfg)
	if err != nil {
		fail(err)
	}
	res, err := run(&cfg, calls)
	if err != nil {
		fail(err)
	}
	res.Tags = harness.ParseTags(*tags)
	fmt.Fprintf(os.Stderr, "loadgen %s %s c=%d n=%d: %.0f req/s, p50 %.1f µs, p99 %.1f µs\n",
		*tags, cfg.payload, cfg.c, cfg.n, res.RPS, res.P50us, res.P99us)
	if *out != "" {
		line, _ := json.Marshal(res)
		f, err := os.OpenFile(*out, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			fail(err)
		}
		f.Write(append(line, '\n'))
		if err := f.Close(); err != nil {
			fail(err)
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "loadgen:", err)
	os.Exit(1)
}

// requireLoopback refuses any target that is not on this machine's
// loopback interface.
func requireLoopback(hostport string) error {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		return err
	}
	ips, err := net.LookupIP(host)
	if err != nil {
		return err
	}
	for _, ip := range ips {
		if !ip.IsLoopback() {
			return fmt.Errorf("%s is not a loopback address: loadgen only targets this machine", host)
		}
	}
	return nil
}

func buildCalls(cfg *config) ([]call, error) {
	mk := func(path string, body []byte, want []byte) call {
		var b bytes.Buffer
		fmt.Fprintf(&b, "POST %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: adkproxy-bench\r\nContent-Type: application/json\r\nContent-Length: %d\r\n",
			path, cfg.target.Host, len(body))
		for _, h := range cfg.headers {
			fmt.Fprintf(&b, "%s\r\n", h)
		}
		b.WriteString("\r\n")
		b.Write(body)
		return call{raw: b.Bytes(), status: http.StatusOK, body: want}
	}
	if cfg.distinct {
		path, want := workload.JSONPath, workload.JSONResponse()
		switch cfg.payload {
		case "json":
		case "sse":
			path, want = workload.SSEPath, workload.SSEBody()
		default:
			return nil, fmt.Errorf("-distinct is for -payload json or sse, not %q", cfg.payload)
		}
		calls := make([]call, cfg.warmup+cfg.n)
		for i := range calls {
			calls[i] = mk(path, workload.TurnRequest(i), want)
		}
		return calls, nil
	}
	switch cfg.payload {
	case "json":
		return []call{mk(workload.JSONPath, workload.Request(), workload.JSONResponse())}, nil
	case "sse":
		return []call{mk(workload.SSEPath, workload.Request(), workload.SSEBody())}, nil
	case "mix":
		if cfg.mix < 1 {
			return nil, errors.New("-mix must be at least 1")
		}
		calls := make([]call, cfg.mix)
		for i := range calls {
			calls[i] = mk(workload.JSONPath, workload.MixRequest(i), workload.MixJSONResponse(i))
		}
		return calls, nil
	}
	return nil, fmt.Errorf("unknown -payload %q (want json, sse or mix)", cfg.payload)
}

// worker is one keep-alive connection.
type worker struct {
	cfg        *config
	conn       net.Conn
	br         *bufio.Reader
	buf        bytes.Buffer
	reconnects int64
}

func (w *worker) dial() error {
	if w.conn != nil {
		w.conn.Close()
		w.reconnects++
	}
	c, err := net.DialTimeout("tcp", w.cfg.target.Host, w.cfg.timeout)
	if err != nil {
		return err
	}
	w.conn = c
	w.br = bufio.NewReaderSize(c, 32<<10)
	return nil
}

// do sends one request and checks the whole answer. A kept-alive
// connection the server closed while idle fails before any answer byte;
// the request is then sent once more on a new connection, as HTTP clients
// do.
func (w *worker) do(c *call) error {
	reused := w.conn != nil
	err := w.try(c)
	if err != nil && reused && errors.Is(err, errStale) {
		w.reconnects++
		err = w.try(c)
	}
	if errors.Is(err, errStale) {
		return errors.Unwrap(err)
	}
	return err
}

// errStale marks a failure before the first byte of the answer.
var errStale = errors.New("connection closed before the answer")

type staleError struct{ err error }

func (e staleError) Error() string        { return e.err.Error() }
func (e staleError) Unwrap() error        { return e.err }
func (e staleError) Is(target error) bool { return target == errStale }

func (w *worker) try(c *call) error {
	if w.conn == nil {
		if err := w.dial(); err != nil {
			return err
		}
	}
	w.conn.SetDeadline(time.Now().Add(w.cfg.timeout))
	if _, err := w.conn.Write(c.raw); err != nil {
		w.conn.Close()
		w.conn = nil
		return staleError{err}
	}
	if _, err := w.br.Peek(1); err != nil {
		w.conn.Close()
		w.conn = nil
		if errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) {
			return staleError{err}
		}
		return err
	}
	resp, err := http.ReadResponse(w.br, nil)
	if err != nil {
		w.conn.Close()
		w.conn = nil
		return err
	}
	w.buf.Reset()
	_, err = w.buf.ReadFrom(resp.Body)
	resp.Body.Close()
	if err != nil {
		w.conn.Close()
		w.conn = nil
		return fmt.Errorf("reading the body: %w", err)
	}
	if resp.Close {
		w.conn.Close()
		w.conn = nil
		w.reconnects++
	}
	if resp.StatusCode != c.status {
		return fmt.Errorf("status %d, want %d; body: %.300s", resp.StatusCode, c.status, w.buf.Bytes())
	}
	if !bytes.Equal(w.buf.Bytes(), c.body) {
		return fmt.Errorf("body of %d bytes differs from the %d expected: %.200q", w.buf.Len(), len(c.body), w.buf.Bytes())
	}
	return nil
}

// phase sends n requests over the workers, request i being
// calls[(first+i)%len], and returns each request's latency when record is
// set.
func phase(ws []*worker, calls []call, first, n int, record bool, deadline time.Time) ([]time.Duration, error) {
	var next atomic.Int64
	var failed atomic.Pointer[error]
	lat := make([][]time.Duration, len(ws))
	var wg sync.WaitGroup
	for wi, w := range ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if record {
				lat[wi] = make([]time.Duration, 0, n/len(ws)+1)
			}
			for {
				i := next.Add(1) - 1
				if i >= int64(n) || failed.Load() != nil {
					return
				}
				if i%256 == 0 && time.Now().After(deadline) {
					err := errors.New("run took longer than -max-time")
					failed.CompareAndSwap(nil, &err)
					return
				}
				c := &calls[(first+int(i))%len(calls)]
				start := time.Now()
				err := w.do(c)
				d := time.Since(start)
				if err != nil {
					err = fmt.Errorf("request %d: %w", i, err)
					failed.CompareAndSwap(nil, &err)
					return
				}
				if record {
					lat[wi] = append(lat[wi], d)
				}
			}
		}()
	}
	wg.Wait()
	if p := failed.Load(); p != nil {
		return nil, *p
	}
	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	return all, nil
}

func run(cfg *config, calls []call) (*Result, error) {
	deadline := time.Now().Add(cfg.maxTotal)
	ws := make([]*worker, cfg.c)
	for i := range ws {
		ws[i] = &worker{cfg: cfg}
	}
	defer func() {
		for _, w := range ws {
			if w.conn != nil {
				w.conn.Close()
			}
		}
	}()
	if cfg.warmup > 0 {
		if _, err := phase(ws, calls, 0, cfg.warmup, false, deadline); err != nil {
			return nil, fmt.Errorf("warm-up: %w", err)
		}
	}
	// With -distinct the measured requests follow the warm-up's: none is
	// sent twice.
	first := 0
	if cfg.distinct {
		first = cfg.warmup
	}
	start := time.Now()
	lat, err := phase(ws, calls, first, cfg.n, true, deadline)
	elapsed := time.Since(start)
	if err != nil {
		return nil, err
	}
	slices.Sort(lat)
	var sum time.Duration
	for _, d := range lat {
		sum += d
	}
	res := &Result{
		Concurrency: cfg.c,
		Requests:    len(lat),
		Seconds:     elapsed.Seconds(),
		RPS:         float64(len(lat)) / elapsed.Seconds(),
		P50us:       micros(percentile(lat, 0.50)),
		P99us:       micros(percentile(lat, 0.99)),
		Meanus:      micros(sum / time.Duration(len(lat))),
	}
	for _, w := range ws {
		res.Reconnects += w.reconnects
	}
	return res, nil
}

// percentile is the nearest-rank percentile of sorted durations.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(p*float64(len(sorted))+0.999999) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

func micros(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }
