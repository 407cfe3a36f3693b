package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// run is one loadgen result line.
type run struct {
	Tags        map[string]string `json:"tags"`
	Concurrency int               `json:"concurrency"`
	RPS         float64           `json:"rps"`
	P50us       float64           `json:"p50_us"`
	P99us       float64           `json:"p99_us"`
}

// cell is the median of a measurement's repetitions.
type cell struct {
	p50, p99, rps float64
	spread        float64 // (max-min)/median of req/s, over repetitions
	reps          int
}

type results struct {
	runs     map[string][]run                // "kind/target/payload/c"
	measures map[string][]map[string]float64 // "kind/tag..." -> values per repetition
}

func key(kind, target, payload string, c int) string {
	return fmt.Sprintf("%s/%s/%s/%d", kind, target, payload, c)
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func (r *results) cell(kind, target, payload string, c int) (cell, bool) {
	rs := r.runs[key(kind, target, payload, c)]
	if len(rs) == 0 {
		return cell{}, false
	}
	var p50, p99, rps []float64
	for _, x := range rs {
		p50 = append(p50, x.P50us)
		p99 = append(p99, x.P99us)
		rps = append(rps, x.RPS)
	}
	m := median(rps)
	return cell{p50: median(p50), p99: median(p99), rps: m,
		spread: (slices.Max(rps) - slices.Min(rps)) / m, reps: len(rs)}, true
}

// measure is the median of one value over the repetitions of a measurement.
func (r *results) measure(id, value string) float64 {
	var xs []float64
	for _, v := range r.measures[id] {
		if x, ok := v[value]; ok {
			xs = append(xs, x)
		}
	}
	return median(xs)
}

func readResults(path string) (*results, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := &results{runs: map[string][]run{}, measures: map[string][]map[string]float64{}}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var probe struct {
			Kind string `json:"kind"`
		}
		if err := json.Unmarshal(line, &probe); err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		if probe.Kind != "" {
			var m Measurement
			if err := json.Unmarshal(line, &m); err != nil {
				return nil, err
			}
			id := m.Kind + "/" + m.Tags["set"] + m.Tags["path"]
			r.measures[id] = append(r.measures[id], m.Values)
			continue
		}
		var x run
		if err := json.Unmarshal(line, &x); err != nil {
			return nil, err
		}
		k := key(x.Tags["kind"], x.Tags["target"], x.Tags["payload"], x.Concurrency)
		r.runs[k] = append(r.runs[k], x)
	}
	return r, sc.Err()
}

// gobench is the median of each Go benchmark's repetitions.
type gobench struct {
	name                       string
	ns, mbs, bytes, allocs     float64
	hasMBs, hasBytes, hasAlloc bool
}

func readGoBench(path string) ([]gobench, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	type acc struct{ ns, mbs, bytes, allocs []float64 }
	byName := map[string]*acc{}
	var order []string
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		name := f[0]
		if i := strings.LastIndex(name, "-"); i > 0 {
			name = name[:i] // drop the GOMAXPROCS suffix
		}
		a := byName[name]
		if a == nil {
			a = &acc{}
			byName[name] = a
			order = append(order, name)
		}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				continue
			}
			switch f[i+1] {
			case "ns/op":
				a.ns = append(a.ns, v)
			case "MB/s":
				a.mbs = append(a.mbs, v)
			case "B/op":
				a.bytes = append(a.bytes, v)
			case "allocs/op":
				a.allocs = append(a.allocs, v)
			}
		}
	}
	var out []gobench
	for _, n := range order {
		a := byName[n]
		out = append(out, gobench{name: n, ns: median(a.ns), mbs: median(a.mbs), bytes: median(a.bytes), allocs: median(a.allocs),
			hasMBs: len(a.mbs) > 0, hasBytes: len(a.bytes) > 0, hasAlloc: len(a.allocs) > 0})
	}
	return out, nil
}

type reportConfig struct {
	results, gobench, profReplay, profLoad, out, goVersion string
	loadStart, loadEnd                                     string
	duration, reps, n, warmup, recN, big                   int
	date                                                   time.Time // when the last measurement was written
	host                                                   machine
}

// machine is what the report says about the computer the run measured.
type machine struct {
	cpus                      int
	cpu, memory, node, kernel string
}

func thisMachine() machine {
	return machine{cpus: runtime.NumCPU(), cpu: cpuModel(), memory: memTotal(), node: nodeVersion(),
		kernel: readTrim("/proc/sys/kernel/osrelease")}
}

func report(args []string) error {
	var rc reportConfig
	fl := flag.NewFlagSet("report", flag.ContinueOnError)
	fl.StringVar(&rc.results, "results", "", "results `FILE` (JSON lines)")
	fl.StringVar(&rc.gobench, "gobench", "", "`FILE` with go test -bench output")
	fl.StringVar(&rc.profReplay, "profile-replay", "", "pprof -top `FILE` of the replay request path")
	fl.StringVar(&rc.profLoad, "profile-load", "", "pprof -top `FILE` of replay start-up")
	fl.StringVar(&rc.out, "out", "BENCHMARKS.md", "output `FILE`")
	fl.StringVar(&rc.goVersion, "go-version", runtime.Version(), "Go version to report")
	fl.StringVar(&rc.loadStart, "loadavg-start", "", "load average when the run started")
	fl.StringVar(&rc.loadEnd, "loadavg-end", "", "load average when the run ended")
	fl.IntVar(&rc.duration, "duration", 0, "seconds the run took")
	fl.IntVar(&rc.reps, "reps", 3, "repetitions")
	fl.IntVar(&rc.n, "n", 0, "requests per load run")
	fl.IntVar(&rc.warmup, "warmup", 0, "warm-up requests per load run")
	fl.IntVar(&rc.recN, "rec-n", 0, "requests per recording run")
	fl.IntVar(&rc.big, "big", 100000, "interactions in the large cassette")
	if err := fl.Parse(args); err != nil {
		return err
	}
	r, err := readResults(rc.results)
	if err != nil {
		return err
	}
	rc.date, rc.host = time.Now().UTC(), thisMachine()
	if info, err := os.Stat(rc.results); err == nil {
		rc.date = info.ModTime().UTC()
	}
	var gb []gobench
	if rc.gobench != "" {
		if gb, err = readGoBench(rc.gobench); err != nil {
			return err
		}
	}
	var b bytes.Buffer
	if err := writeReport(&b, &rc, r, gb); err != nil {
		return err
	}
	return os.WriteFile(rc.out, b.Bytes(), 0o644)
}

// fixed writes x with the given number of decimals, "–" when unknown.
func fixed(x float64, decimals int) string {
	if math.IsNaN(x) {
		return "–"
	}
	return strconv.FormatFloat(x, 'f', decimals, 64)
}

func f0(x float64) string { return fixed(x, 0) }
func f1(x float64) string { return fixed(x, 1) }
func f2(x float64) string { return fixed(x, 2) }

// thousands writes 12345 as "12,345".
func thousands(x float64) string {
	if math.IsNaN(x) {
		return "–"
	}
	s := strconv.FormatInt(int64(math.Round(x)), 10)
	var out []byte
	for i := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}

func metMark(ok bool) string {
	if ok {
		return "**met**"
	}
	return "**not met**"
}

var replayTargets = []struct{ id, label string }{
	{"static", "static net/http (limit)"},
	{"static-event", "static net/http, SSE flushed per event"},
	{"adkproxy", "**adkproxy replay**"},
	{"proxay", "proxay 1.9.0"},
	{"talkback", "talkback 4.2.0"},
	{"go-vcr", "go-vcr v4 (in-process)"},
}

func writeReport(w *bytes.Buffer, rc *reportConfig, r *results, gb []gobench) error {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	now := rc.date
	p("# Benchmarks\n\n")
	p("Written by `make bench` (`scripts/bench.sh`) on %s; the run took %d min %d s. ", now.Format("2006-01-02 15:04 MST"), rc.duration/60, rc.duration%60)
	p("Every figure is the median of %d repetitions, interleaved across targets; each load run sends %s requests after %s warm-up requests, ", rc.reps, thousands(float64(rc.n)), thousands(float64(rc.warmup)))
	p("over keep-alive connections on the loopback interface, and checks every response's status and bytes (a wrong answer fails the run). ")
	p("Ratios (×) are to the static net/http server at the same payload and concurrency, the physical limit of this machine: for latency lower is better, for throughput higher is better. ")
	p("See [the machine](#machine) for what else was running.\n\n")

	p("The request is a 4,096-byte `generateContent` body (a history with a `functionCall` and its `functionResponse`, two tool declarations, a system instruction); ")
	p("the JSON answer is 2,048 bytes, the SSE answer 20 events in Gemini's framing (`data: {...}\\r\\n\\r\\n`, 5,344 bytes). ")
	p("Latency is per request, from writing the request to reading the last byte of the answer, measured by the client (`bench/loadgen`).\n\n")

	// ---- main table
	p("## Replay: throughput and latency\n\n")
	p("| Target | Payload | Conc. | p50 µs (× static) | p99 µs (× static) | req/s (× static) | spread |\n")
	p("|---|---|---:|---:|---:|---:|---:|\n")
	for _, payload := range []string{"json", "sse"} {
		for _, c := range []int{1, 16} {
			base, _ := r.cell("replay", "static", payload, c)
			for _, t := range replayTargets {
				x, ok := r.cell("replay", t.id, payload, c)
				if !ok || t.id == "static-event" && payload != "sse" {
					continue
				}
				p("| %s | %s | %d | %s (%s) | %s (%s) | %s (%s) | %s%% |\n", t.label, strings.ToUpper(payload), c,
					f0(x.p50), f2(x.p50/base.p50), f0(x.p99), f2(x.p99/base.p99), thousands(x.rps), f2(x.rps/base.rps), f0(100*x.spread))
			}
		}
	}
	p("\n*spread*: (max − min) / median of req/s over the repetitions, a measure of the noise.\n\n")
	p("**Streams.** With nothing to wait for, every target here sends a replayed stream as fast as the connection takes it: adkproxy and the static limit write the 20 events and let net/http flush once at the end (chunked, as the live API sends a stream), proxay, talkback and go-vcr send the stream as one body with a Content-Length. ")
	p("The *flushed per event* row is the static server writing and flushing each event on its own, as the live API does and as adkproxy does with `--replay-timing` (which also waits the recorded gaps): 21 writes instead of 2, shown for scale.\n\n")
	p("How each target ran: **static** is `bench/static -stream whole`, reading the body and writing fixed bytes; `-stream event` flushes each SSE event. ")
	p("**adkproxy** is the real binary, `adkproxy replay --allow-repeats --cassettes DIR`, on a cassette written with `cassettes.Save`. ")
	p("**proxay** is its CLI, `proxay --mode replay --exact-request-matching`, on a tape in its YAML format; it logs one line per request (to a file here) and buffers SSE into one write. ")
	p("**talkback** is `talkback({record: DISABLED, silent: true, summary: false})` on JSON5 tapes in its format; it buffers SSE. ")
	p("Both peers are pinned by `bench/peers/package-lock.json`, bound to 127.0.0.1 (`bench/peers/loopback.js`). ")
	p("**go-vcr** is `bench/govcr`: a net/http handler that hands each request to a go-vcr v4 recorder (`ModeReplayOnly`, latency skipped, replayable interactions, a JSON body matcher) — an in-process library behind the same HTTP server, so a reference rather than a proxy.\n\n")

	// ---- floors
	p("## Floors\n\n")
	p("| Floor | Measured | |\n|---|---|---|\n")
	var missed []string
	for _, payload := range []string{"json", "sse"} {
		a, _ := r.cell("replay", "adkproxy", payload, 16)
		s, _ := r.cell("replay", "static", payload, 16)
		ratio := a.rps / s.rps
		ok := ratio >= 0.5
		p("| replay throughput ≥ 0.5× static, c=16, %s | %s / %s req/s = %s× | %s |\n", strings.ToUpper(payload), thousands(a.rps), thousands(s.rps), f2(ratio), metMark(ok))
		if !ok {
			missed = append(missed, "throughput")
		}
	}
	var peerGaps []string
	for _, peer := range []string{"proxay", "talkback"} {
		for _, payload := range []string{"json", "sse"} {
			a, _ := r.cell("replay", "adkproxy", payload, 16)
			x, _ := r.cell("replay", peer, payload, 16)
			s, _ := r.cell("replay", "static", payload, 16)
			ratio := a.rps / x.rps
			ok := ratio >= 3
			p("| replay throughput ≥ 3× %s, c=16, %s | %s / %s req/s = %s× | %s |\n", peer, strings.ToUpper(payload), thousands(a.rps), thousands(x.rps), f2(ratio), metMark(ok))
			if !ok {
				missed = append(missed, "throughput")
			}
			if ratio < 3.6 { // missed, or within the noise of missing
				label := "Gap"
				if ok {
					label = "Close to the floor"
				}
				peerGaps = append(peerGaps, fmt.Sprintf("**%s:** %s answers %s at %s× the static limit in this run, so 3× %s is %s× the limit, where the limit is a server that only reads each request and writes fixed bytes; adkproxy reached %s×.",
					label, peer, strings.ToUpper(payload), f2(x.rps/s.rps), peer, f2(3*x.rps/s.rps), f2(a.rps/s.rps)))
			}
		}
	}
	for _, payload := range []string{"json", "sse"} {
		a, _ := r.cell("replay", "adkproxy", payload, 1)
		s, _ := r.cell("replay", "static", payload, 1)
		added := a.p50 - s.p50
		ok := added <= 200
		p("| p50 added latency ≤ 0.2 ms, c=1, %s | %s − %s µs = %s µs | %s |\n", strings.ToUpper(payload), f0(a.p50), f0(s.p50), f0(added), metMark(ok))
		if !ok {
			missed = append(missed, "latency")
		}
	}
	sseP99 := r.measure("ssedelay/adkproxy-record", "p99_us")
	sseOK := sseP99 <= 5000
	p("| first SSE event ≤ 5 ms after the upstream sends it (recording; p99) | p50 %s µs, p99 %s µs, max %s µs | %s |\n",
		f0(r.measure("ssedelay/adkproxy-record", "p50_us")), f0(sseP99), f0(r.measure("ssedelay/adkproxy-record", "max_us")), metMark(sseOK))
	if !sseOK {
		missed = append(missed, "sse")
	}
	bigName := strconv.Itoa(rc.big)
	for _, c := range []int{16, 1} {
		small, _ := r.cell("size", "10", "mix", c)
		large, _ := r.cell("size", bigName, "mix", c)
		ratio := large.rps / small.rps
		ok := ratio >= 0.95
		p("| replay throughput with %s interactions ≥ 0.95× with 10, c=%d | %s / %s req/s = %s× | %s |\n", thousands(float64(rc.big)), c, thousands(large.rps), thousands(small.rps), f2(ratio), metMark(ok))
		if !ok {
			missed = append(missed, "size")
		}
	}
	for _, set := range []string{"10k-one-file", "10k-500-files"} {
		id := "coldstart/" + set
		ms := r.measure(id, "startup_ms")
		rss, yamlMB := r.measure(id, "vmhwm_mb"), r.measure(id, "yaml_mb")
		okT, okM := ms <= 1000, rss <= 3*yamlMB
		p("| 10k-interaction cold start ≤ 1 s (%s) | %s ms | %s |\n", set, thousands(ms), metMark(okT))
		p("| … with peak RSS ≤ 3× the YAML size (%s) | %s MB / %s MB = %s× | %s |\n", set, f0(rss), f0(yamlMB), f1(rss/yamlMB), metMark(okM))
		if !okT || !okM {
			missed = append(missed, "coldstart")
		}
	}
	for _, g := range gb {
		if g.name == "BenchmarkEvaluate10kInvocations" {
			ok := g.ns <= 2e9
			p("| 10k invocations scored ≤ 2 s | %s ms (`BenchmarkEvaluate10kInvocations`) | %s |\n", thousands(g.ns/1e6), metMark(ok))
			if !ok {
				missed = append(missed, "scoring")
			}
		}
	}
	p("\n")
	for _, g := range peerGaps {
		p("%s\n\n", g)
	}

	// ---- recording
	p("## Recording overhead\n\n")
	p("`loadgen → adkproxy record → bench/static` against `loadgen → bench/static` directly, %s requests per run after %s warm-up, a fresh proxy and cassette folder per run. ", thousands(float64(rc.recN)), thousands(float64(rc.recN/10)))
	p("`--mode overwrite` (the default) appends every exchange to the cassette's journal and fsyncs it before the client sees the end of the answer, so that a killed recording loses nothing a client received; ")
	p("`--mode passthrough` forwards and keeps nothing. There is no switch to record without the journal, so *overwrite − passthrough* is the cost of keeping the exchange, fsync included. ")
	p("These runs send `X-Adkproxy-Invocation`, which files every call in one invocation; the *untagged* run leaves it out, so each of the identical calls opens a session of its own, as distinct user turns would.\n\n")
	p("| Path | Payload | Conc. | p50 µs | p99 µs | req/s | p50 added vs direct |\n|---|---|---:|---:|---:|---:|---:|\n")
	recordPaths := []struct{ id, label string }{
		{"direct", "direct to static"},
		{"adkproxy-passthrough", "adkproxy record --mode passthrough"},
		{"adkproxy-overwrite", "adkproxy record (overwrite: journal + fsync)"},
		{"adkproxy-overwrite-untagged", "adkproxy record (overwrite), untagged"},
	}
	for _, payload := range []string{"json", "sse"} {
		for _, c := range []int{1, 16} {
			d, _ := r.cell("record", "direct", payload, c)
			for _, t := range recordPaths {
				x, ok := r.cell("record", t.id, payload, c)
				if !ok {
					continue
				}
				added := "–"
				if t.id != "direct" {
					added = f0(x.p50-d.p50) + " µs"
				}
				p("| %s | %s | %d | %s | %s | %s | %s |\n", t.label, strings.ToUpper(payload), c, f0(x.p50), f0(x.p99), thousands(x.rps), added)
			}
		}
	}
	p("\n")
	for _, payload := range []string{"json", "sse"} {
		ow, _ := r.cell("record", "adkproxy-overwrite", payload, 1)
		pt, _ := r.cell("record", "adkproxy-passthrough", payload, 1)
		p("- **Keeping an exchange** (journal record + fsync), %s at c=1: **%s µs** at p50 (overwrite %s µs − passthrough %s µs).\n", strings.ToUpper(payload), f0(ow.p50-pt.p50), f0(ow.p50), f0(pt.p50))
	}
	for _, g := range gb {
		switch g.name {
		case "BenchmarkJournalAppend":
			p("- `BenchmarkJournalAppend` (encode, scan for secrets, append, fsync) alone: %s µs per exchange; `BenchmarkRecordJSON` − `BenchmarkRecordPassthroughJSON` (the handler with and without keeping): ", f0(g.ns/1e3))
			rj, rp := math.NaN(), math.NaN()
			for _, h := range gb {
				switch h.name {
				case "BenchmarkRecordJSON":
					rj = h.ns
				case "BenchmarkRecordPassthroughJSON":
					rp = h.ns
				}
			}
			p("%s µs.\n", f0((rj-rp)/1e3))
		}
	}
	ow16, _ := r.cell("record", "adkproxy-overwrite", "json", 16)
	pt16, _ := r.cell("record", "adkproxy-passthrough", "json", 16)
	p("- At c=16 the journal's appends are serialised (one write + fsync at a time, under the journal's lock, with no group commit), so recording throughput is bounded by the disk's fsync rate: %s req/s with the journal against %s without.\n", thousands(ow16.rps), thousands(pt16.rps))
	ut, _ := r.cell("record", "adkproxy-overwrite-untagged", "json", 1)
	ow1, _ := r.cell("record", "adkproxy-overwrite", "json", 1)
	p("- Untagged, JSON at c=1: p50 %s µs against %s µs tagged — the organiser scanning every session of the cassette for each call (see the recording note below).\n", f0(ut.p50), f0(ow1.p50))
	p("- Even without keeping anything, forwarding costs more than replaying: the handler parses each request body to place the call (`Analyze`, ~60 µs for 4 KB), parses the answer for function calls, and adds a second loopback hop with its wake-ups.\n\n")

	// ---- first SSE event
	p("## First SSE event while recording\n\n")
	p("An upstream in `benchtool ssedelay` writes event 1, notes the time, and holds the other 19 until the client has the first; the client notes when it has read the whole first event. Same process, so the clocks agree.\n\n")
	p("| Path | p50 µs | p99 µs | max µs |\n|---|---:|---:|---:|\n")
	for _, t := range []struct{ id, label string }{{"direct", "client → upstream"}, {"adkproxy-record", "client → adkproxy record → upstream"}} {
		id := "ssedelay/" + t.id
		p("| %s | %s | %s | %s |\n", t.label, f0(r.measure(id, "p50_us")), f0(r.measure(id, "p99_us")), f0(r.measure(id, "max_us")))
	}
	p("\n")

	// ---- cold start
	p("## Cold start\n\n")
	p("From starting `adkproxy replay --cassettes DIR --addr-file FILE` until FILE exists (it is written once every cassette is loaded and indexed and the port is open), and the process's peak RSS then (`VmHWM`). ")
	p("The 10k interactions are the real exchanges of the 47 recordings in `../shared/fixtures/gemini-traffic` (function calls with thought signatures, delegation, SSE streams, errors), copied with distinct user texts until there are 10,000, each copy in sessions of its own; ")
	p("once in one cassette, once spread over 500 cassettes as a test suite would record them. The large cassette is the same traffic plus loadgen's request mix (below).\n\n")
	p("| Cassettes | Files | YAML MB | start-up ms | peak RSS MB | RSS / YAML |\n|---|---:|---:|---:|---:|---:|\n")
	for _, set := range []string{"10k-one-file", "10k-500-files", bigLabel(rc.big) + "-one-file"} {
		id := "coldstart/" + set
		if len(r.measures[id]) == 0 {
			continue
		}
		rss, yamlMB := r.measure(id, "vmhwm_mb"), r.measure(id, "yaml_mb")
		p("| %s | %s | %s | %s | %s | %s× |\n", set, f0(r.measure(id, "files")), f0(yamlMB), thousands(r.measure(id, "startup_ms")), f0(rss), f1(rss/yamlMB))
	}
	p("\n")

	// ---- size
	p("## Replay throughput and cassette size\n\n")
	p("The same mix of 10 distinct 4 KB requests (JSON answers) replayed with `--allow-repeats` from a cassette holding only those 10, and from one holding them among %s interactions (the rest realistic traffic as above). Both proxies ran side by side and the runs alternated.\n\n", thousands(float64(rc.big)))
	p("| Recorded interactions | Conc. | p50 µs | p99 µs | req/s | spread |\n|---|---:|---:|---:|---:|---:|\n")
	for _, c := range []int{1, 16} {
		for _, t := range []string{"10", bigName} {
			x, ok := r.cell("size", t, "mix", c)
			if !ok {
				continue
			}
			p("| %s | %d | %s | %s | %s | %s%% |\n", thousands(mustFloat(t)), c, f0(x.p50), f0(x.p99), thousands(x.rps), f0(100*x.spread))
		}
	}
	p("\n")

	// ---- go benchmarks
	if len(gb) > 0 {
		p("## Go benchmarks\n\n")
		p("`go test -bench` in the packages, median of %d (`-count`). The 4 KB request is the one above.\n\n", rc.reps)
		p("| Benchmark | µs/op | MB/s | B/op | allocs/op |\n|---|---:|---:|---:|---:|\n")
		for _, g := range gb {
			mbs, bs, al := "–", "–", "–"
			if g.hasMBs {
				mbs = f1(g.mbs)
			}
			if g.hasBytes {
				bs = thousands(g.bytes)
			}
			if g.hasAlloc {
				al = thousands(g.allocs)
			}
			p("| `%s` | %s | %s | %s | %s |\n", strings.TrimPrefix(g.name, "Benchmark"), f1(g.ns/1e3), mbs, bs, al)
		}
		p("\n")
	}

	// ---- misses: profiles and plans
	if len(missed) > 0 {
		p("## Misses: profiles and plans\n\n")
		p("Profiles are `go tool pprof -top -cum` of `BenchmarkReplayJSON` (the handler for one replayed call) and of `BenchmarkNewReplay/interactions=1000` (replay start-up), from this run.\n\n")
		if slices.Contains(missed, "throughput") || slices.Contains(missed, "latency") || slices.Contains(missed, "size") {
			p("### Replay request path\n\n```\n%s```\n\n", profileText(rc.profReplay))
			p("%s\n\n", planReplay)
		}
		if slices.Contains(missed, "coldstart") {
			p("### Replay start-up\n\n```\n%s```\n\n", profileText(rc.profLoad))
			one, suite := "coldstart/10k-one-file", "coldstart/10k-500-files"
			p("%s\n\n", strings.NewReplacer(
				"{{rss-one}}", f1(r.measure(one, "vmhwm_mb")/r.measure(one, "yaml_mb")),
				"{{rss-suite}}", f1(r.measure(suite, "vmhwm_mb")/r.measure(suite, "yaml_mb")),
				"{{yaml-mb}}", f0(r.measure(one, "yaml_mb")),
			).Replace(planColdStart))
		}
		if slices.Contains(missed, "sse") {
			p("%s\n\n", planSSE)
		}
	}
	p("%s\n\n", recordNote)

	// ---- machine
	p("## Machine\n\n")
	p("| | |\n|---|---|\n")
	p("| CPUs (nproc) | %d |\n", rc.host.cpus)
	p("| CPU | %s |\n", rc.host.cpu)
	p("| Memory | %s |\n", rc.host.memory)
	p("| Go | %s |\n", rc.goVersion)
	p("| Node.js | %s |\n", rc.host.node)
	p("| Kernel | %s |\n", rc.host.kernel)
	p("| Date | %s |\n", now.Format("2006-01-02 15:04 MST"))
	p("| Load average (1, 5, 15 min) at start / end | %s / %s |\n", rc.loadStart, rc.loadEnd)
	p("| Duration of `scripts/bench.sh` | %d min %d s |\n\n", rc.duration/60, rc.duration%60)
	p("The machine has 2 cores shared by the load generator, the target and anything else running: other work (other engineers' test runs) was going on during this run, so the figures are noisy; the *spread* column shows how much. ")
	p("Ratios to the static server, measured in the same repetitions, are steadier than absolute numbers.\n")
	return nil
}

// bigLabel names the large cassette in coldstart tags: 100000 -> "100k".
func bigLabel(n int) string {
	if n%1000 == 0 {
		return strconv.Itoa(n/1000) + "k"
	}
	return strconv.Itoa(n)
}

func mustFloat(s string) float64 {
	f, _ := strconv.ParseFloat(s, 64)
	return f
}

func profileText(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return "(no profile)\n"
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "File:") || strings.HasPrefix(line, "Build ID:") || strings.HasPrefix(line, "Type:") || strings.HasPrefix(line, "Time:") {
			continue
		}
		if strings.Contains(line, "testing.(*B)") || strings.Contains(line, "_test.") {
			continue
		}
		out = append(out, line)
	}
	return strings.TrimSpace(strings.Join(out, "\n")) + "\n"
}

func readTrim(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(data))
}

func cpuModel() string {
	for _, line := range strings.Split(readTrim("/proc/cpuinfo"), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "?"
}

func memTotal() string {
	for _, line := range strings.Split(readTrim("/proc/meminfo"), "\n") {
		if v, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			if err == nil {
				return fmt.Sprintf("%.1f GiB", kb/(1<<20))
			}
		}
	}
	return "?"
}

func nodeVersion() string {
	out, err := execOutput("node", "--version")
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(out)
}
