// The measurements benchtool takes itself rather than loadgen: replay's cold start and the first
// SSE event's delay while recording.

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
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/adkproxy/adkproxy/bench/harness"
	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/testing/workload"
)

// Measurement is one JSON line of results that is not a loadgen run.
type Measurement struct {
	Kind   string             `json:"kind"`
	Tags   map[string]string  `json:"tags"`
	Values map[string]float64 `json:"values"`
}

func appendResult(path string, m Measurement) error {
	line, err := json.Marshal(m)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "%s\n", line)
	if path == "" {
		return nil
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	f.Write(append(line, '\n'))
	return f.Close()
}

// coldStart starts `adkproxy replay` on a cassette folder and measures the
// time from starting the process until its --addr-file exists (it is
// written once the port is open; with -check, once every cassette is
// loaded), and the peak resident memory at that point (VmHWM in
// /proc/PID/status), -reps times. With -ask NAME it then sends the first
// recorded request of cassette NAME and measures, from the start, until
// its answer is in: what a test waits for before its first model call is
// answered. It also records the size of the YAML files.
func coldStart(args []string) error {
	fl := flag.NewFlagSet("coldstart", flag.ContinueOnError)
	bin := fl.String("bin", "bin/adkproxy", "adkproxy `BINARY`")
	dir := fl.String("dir", "", "cassette `DIR`")
	reps := fl.Int("reps", 3, "repetitions")
	tags := fl.String("tags", "", "`k=v,...` labels")
	out := fl.String("out", "", "append results to `FILE`")
	limit := fl.Duration("timeout", 5*time.Minute, "give up on one start after this long")
	check := fl.Bool("check", false, "start replay with --check (read every cassette before serving)")
	ask := fl.String("ask", "", "cassette `NAME` whose first recorded request is sent once the port is open")
	if err := fl.Parse(args); err != nil {
		return err
	}
	var first *cassettes.Exchange
	if *ask != "" {
		var err error
		if first, err = firstRequest(*dir, *ask); err != nil {
			return err
		}
	}
	paths, err := cassettes.Files(*dir) // what adkproxy will load
	if err != nil {
		return err
	}
	var yamlBytes int64
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return err
		}
		yamlBytes += info.Size()
	}
	files := len(paths)
	for rep := 1; rep <= *reps; rep++ {
		tmp, err := os.MkdirTemp("", "adkproxy-coldstart-")
		if err != nil {
			return err
		}
		addrFile := filepath.Join(tmp, "addr")
		argv := []string{"replay", "--cassettes", *dir, "--listen", "127.0.0.1:0", "--addr-file", addrFile, "--log-level", "error"}
		if *check {
			argv = append(argv, "--check")
		}
		cmd := exec.Command(*bin, argv...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		start := time.Now()
		if err := cmd.Start(); err != nil {
			os.RemoveAll(tmp)
			return err
		}
		ready, err := waitForFile(addrFile, cmd, *limit)
		elapsed := time.Since(start)
		var answered time.Duration
		if err == nil && ready && first != nil {
			if err = askFirst(addrFile, *ask, first); err == nil {
				answered = time.Since(start)
			}
		}
		hwm, herr := vmHWM(cmd.Process.Pid)
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
		os.RemoveAll(tmp)
		if err != nil || !ready {
			return fmt.Errorf("adkproxy did not start: %v\n%s", err, stderr.Bytes())
		}
		if herr != nil {
			return herr
		}
		t := harness.ParseTags(*tags)
		t["rep"] = strconv.Itoa(rep)
		values := map[string]float64{
			"startup_ms": float64(elapsed.Microseconds()) / 1e3,
			"vmhwm_mb":   float64(hwm) / 1024,
			"yaml_mb":    float64(yamlBytes) / (1 << 20),
			"files":      float64(files),
		}
		if first != nil {
			values["first_answer_ms"] = float64(answered.Microseconds()) / 1e3
		}
		if err := appendResult(*out, Measurement{Kind: "coldstart", Tags: t, Values: values}); err != nil {
			return err
		}
	}
	return nil
}

// firstRequest is the first recorded exchange of cassette name in dir.
func firstRequest(dir, name string) (*cassettes.Exchange, error) {
	path, err := cassettes.PathFor(dir, name)
	if err != nil {
		return nil, err
	}
	c, err := cassettes.Load(path)
	if err != nil {
		return nil, err
	}
	if len(c.Exchanges) == 0 {
		return nil, fmt.Errorf("cassette %s has no exchanges", path)
	}
	return c.Exchanges[0], nil
}

// askFirst sends x's request for cassette name to the replay whose address
// is in addrFile and reads the whole answer, which must have x's status.
func askFirst(addrFile, name string, x *cassettes.Exchange) error {
	req := &x.Request
	addr, err := os.ReadFile(addrFile)
	if err != nil {
		return err
	}
	target := "http://" + strings.TrimSpace(string(addr)) + req.Path
	if req.Query != "" {
		target += "?" + req.Query
	}
	r, err := http.NewRequest(req.Method, target, bytes.NewReader(req.Body))
	if err != nil {
		return err
	}
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("X-Adkproxy-Cassette", name)
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != x.Response.Status {
		return fmt.Errorf("the first request of %s was not replayed: %d %s", name, resp.StatusCode, body)
	}
	return nil
}

// waitForFile polls every half millisecond until path exists, the process
// exits, or the limit passes.
func waitForFile(path string, cmd *exec.Cmd, limit time.Duration) (bool, error) {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if info, err := os.Stat(path); err == nil && info.Size() > 0 {
			return true, nil
		}
		var ws syscall.WaitStatus
		if pid, _ := syscall.Wait4(cmd.Process.Pid, &ws, syscall.WNOHANG, nil); pid == cmd.Process.Pid {
			return false, fmt.Errorf("exited with %v", ws)
		}
		time.Sleep(500 * time.Microsecond)
	}
	return false, errors.New("timed out")
}

// vmHWM is the peak resident set size of a process, in KiB.
func vmHWM(pid int) (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		}
	}
	return 0, errors.New("no VmHWM in /proc status")
}

// sseDelay measures how long the first SSE event takes from the upstream's
// write to the client's receipt while adkproxy records. An in-process
// upstream sends event 1, notes the time and then waits until the client
// has the event (or 50 ms) before sending the other 19; the client notes
// when it has read the whole first event. The same is measured with the
// client talking to the upstream directly, as the baseline.
func sseDelay(args []string) error {
	fl := flag.NewFlagSet("ssedelay", flag.ContinueOnError)
	bin := fl.String("bin", "bin/adkproxy", "adkproxy `BINARY`")
	n := fl.Int("n", 200, "measured requests per path")
	warm := fl.Int("warmup", 20, "requests before measuring")
	reps := fl.Int("reps", 3, "repetitions")
	out := fl.String("out", "", "append results to `FILE`")
	if err := fl.Parse(args); err != nil {
		return err
	}
	up := newSlowUpstream()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: up}
	go srv.Serve(ln)
	defer srv.Close()
	upstream := "http://" + ln.Addr().String()

	tmp, err := os.MkdirTemp("", "adkproxy-ssedelay-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	proc, err := startAdkproxy(*bin, tmp, "record", "--cassettes", filepath.Join(tmp, "cassettes"), "--upstream", upstream)
	if err != nil {
		return err
	}
	defer proc.stop()
	proxyURL := proc.URL
	for rep := 1; rep <= *reps; rep++ {
		for _, target := range []struct{ name, base string }{{"direct", upstream}, {"adkproxy-record", proxyURL}} {
			d, err := probeFirstEvent(up, target.base, *warm, *n)
			if err != nil {
				return fmt.Errorf("%s: %v", target.name, err)
			}
			slices.Sort(d)
			us := func(p float64) float64 {
				i := min(len(d)-1, max(0, int(p*float64(len(d))+0.999999)-1))
				return float64(d[i].Nanoseconds()) / 1e3
			}
			if err := appendResult(*out, Measurement{Kind: "ssedelay",
				Tags:   map[string]string{"path": target.name, "rep": strconv.Itoa(rep)},
				Values: map[string]float64{"p50_us": us(0.5), "p99_us": us(0.99), "max_us": us(1), "n": float64(len(d))}}); err != nil {
				return err
			}
		}
	}
	return nil
}

// slowUpstream streams event 1, then holds the rest until released.
type slowUpstream struct {
	mu      sync.Mutex
	sent    map[string]time.Time
	release map[string]chan struct{}
}

func newSlowUpstream() *slowUpstream {
	return &slowUpstream{sent: map[string]time.Time{}, release: map[string]chan struct{}{}}
}

func (u *slowUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	id := r.Header.Get("X-Bench-Id")
	ch := make(chan struct{})
	u.mu.Lock()
	u.release[id] = ch
	u.mu.Unlock()
	events := workload.SSEEventList()
	w.Header().Set("Content-Type", workload.SSEContentType)
	w.WriteHeader(http.StatusOK)
	f := w.(http.Flusher)
	f.Flush()
	now := time.Now()
	u.mu.Lock()
	u.sent[id] = now
	u.mu.Unlock()
	w.Write(events[0])
	f.Flush()
	select {
	case <-ch:
	case <-time.After(50 * time.Millisecond):
	case <-r.Context().Done():
		return
	}
	for _, ev := range events[1:] {
		w.Write(ev)
		f.Flush()
	}
}

func (u *slowUpstream) take(id string) (time.Time, chan struct{}) {
	u.mu.Lock()
	defer u.mu.Unlock()
	t, ch := u.sent[id], u.release[id]
	delete(u.sent, id)
	delete(u.release, id)
	return t, ch
}

func probeFirstEvent(up *slowUpstream, base string, warm, n int) ([]time.Duration, error) {
	client := &http.Client{Transport: &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 1}, Timeout: 10 * time.Second}
	defer client.CloseIdleConnections()
	want := workload.SSEEventList()
	var out []time.Duration
	for i := 0; i < warm+n; i++ {
		id := strconv.Itoa(i) + "-" + base
		req, err := http.NewRequest(http.MethodPost, base+workload.SSEPath, bytes.NewReader(workload.Request()))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Bench-Id", id)
		resp, err := client.Do(req)
		if err != nil {
			return nil, err
		}
		br := bufio.NewReader(resp.Body)
		first, err := readEvent(br)
		got := time.Now()
		sent, release := up.take(id)
		if release != nil {
			close(release)
		}
		if err != nil {
			resp.Body.Close()
			return nil, fmt.Errorf("reading the first event: %v", err)
		}
		rest, err := io.ReadAll(br)
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		if resp.StatusCode != http.StatusOK || !bytes.Equal(first, want[0]) || !bytes.Equal(rest, bytes.Join(want[1:], nil)) {
			return nil, fmt.Errorf("wrong answer: status %d, first event %q", resp.StatusCode, first)
		}
		if sent.IsZero() {
			return nil, errors.New("the upstream did not see the request")
		}
		if i >= warm {
			out = append(out, got.Sub(sent))
		}
	}
	return out, nil
}

// readEvent reads through the first blank line ("\r\n\r\n").
func readEvent(br *bufio.Reader) ([]byte, error) {
	var ev []byte
	for !bytes.HasSuffix(ev, []byte("\r\n\r\n")) {
		line, err := br.ReadBytes('\n')
		ev = append(ev, line...)
		if err != nil {
			return ev, err
		}
	}
	return ev, nil
}
