// The figures of BENCHMARKS.md: reportData, computed from the results, and
// which floors the run met; report.md.tmpl holds the words.

package main

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// reportData is everything BENCHMARKS.md shows, in the order it shows it.
type reportData struct {
	Date                 string
	DurMin, DurSec, Reps int
	N, Warmup            float64

	Replay []replayRow

	StaticFloors  []ratioFloor
	PeerFloors    []peerFloor
	LatencyFloors []latencyFloor
	SSEFloor      sseFloor
	SizeFloors    []ratioFloor
	ColdFloors    []coldFloor
	// FirstAnswerFloor: a test's first answer with its cassette among 500
	// (A) against alone in the folder (B), in ms.
	FirstAnswerFloor *ratioFloor
	// StartFloor: adkproxytest's New, one answer and Close with the test's
	// cassette among 400 (A) against alone (B), in µs.
	StartFloor    *ratioFloor
	MemoryFloors  []memoryFloor
	ScoringFloors []scoringFloor
	// InterceptFloors and Intercept: BenchmarkInterceptedReplay (intercept.go).
	InterceptFloors []ratioFloor
	// LiveFloors and Live: BenchmarkLiveReplay (live.go).
	LiveFloors []ratioFloor
	Live       []liveRow
	// Simulate: bench/simulate's pairs (simulate.go), when the run had them.
	Simulate *simulateRow
	// ForwardFloors: passthrough against httputil.ReverseProxy; KeepFloors:
	// recording (overwrite) against passthrough, c=16.
	ForwardFloors []ratioFloor
	KeepFloors    []ratioFloor
	Intercept     []interceptRow

	RecN, RecWarmup float64
	Record          []recordRow
	Keeping         []keepingRow
	Syncs           []syncRow
	Journal         []journalRow
	OW16, PT16      float64 // req/s, JSON at c=16
	UT1, OW1        float64 // p50 µs, JSON at c=1

	SSE       []latencyRow
	ColdStart []coldRow
	RecordRSS []memoryFloor
	LoadRSS   []loadFloor
	Big       float64
	Size      []sizeRow
	GoBench   []goBenchRow

	Missed                     bool
	ProfileReplay, PlanReplay  string // set when a replay floor was missed
	ProfileLoad, PlanColdStart string // set when a cold-start floor was missed
	PlanSSE                    string // set when the first-SSE-event floor was missed
	PlanRecordRSS              string // set when the recording-memory floor was missed
	PlanLoadRSS                string // set when the loading-memory floor was missed
	PlanRecording              string // set when a forwarding or keeping floor was missed
	RecordNote                 string

	Machine machineRow
}

type replayRow struct {
	Label, Payload                          string
	C                                       int
	P50, P50x, P99, P99x, RPS, RPSx, Spread float64 // Spread in per cent
}

// minForwardRatio and minKeepRatio are the recording floors (issue 15):
// passthrough against the ReverseProxy reference, and keeping exchanges at
// c=16 against passthrough.
const (
	minForwardRatio = 0.8
	minKeepRatio    = 0.7
)

// ratioFloor is a throughput floor: A / B req/s = Ratio×.
type ratioFloor struct {
	Payload     string
	C           int
	A, B, Ratio float64
	Met         bool
	Distinct    bool // recording: every call a distinct first turn (loadgen -distinct)
}

// peerFloor is adkproxy's throughput against a peer's; Gap says the run
// missed it or came within the noise of missing it, which the report
// explains in terms of the static limit (PeerX, Floor3 and AdkX).
type peerFloor struct {
	ratioFloor
	Peer                string
	Gap                 bool
	PeerX, Floor3, AdkX float64
}

type latencyFloor struct {
	Payload         string
	A, Static, Diff float64
	Met             bool
}

type sseFloor struct {
	P50, P99, Max float64
	Met           bool
}

type coldFloor struct {
	Set                  string
	MS, RSS, YAML, Ratio float64
	MetTime, MetMemory   bool
}

// memoryFloor is the peak RSS while recording one answer of AnswerMB:
// Peak − Base (the idle process) = Ratio × the answer.
type memoryFloor struct {
	Set, Label                  string
	AnswerMB, Base, Peak, Ratio float64
	Met                         bool
}

// maxRecordRSS is the floor on Ratio: memory while recording an answer of
// N bytes stays within 2.5 N above the idle process.
const maxRecordRSS = 2.5

// loadFloor is the peak RSS of a command (ls, replay --check) reading one
// cassette of FileMB: Peak − Base (the same command on a cassette of ten
// small steps) = Ratio × the file.
type loadFloor struct {
	Set, Label, Of, Command   string
	FileMB, Base, Peak, Ratio float64
	Met                       bool
}

// maxLoadRSS is the floor on a loadFloor's Ratio (issue 39 items 5 and
// 12): reading a cassette takes at most twice its size above the idle
// process.
const maxLoadRSS = 2.0

// loadSets are benchtool loadrss's cassettes, in the report's order, with
// their labels.
var loadSets = []struct{ set, label, of string }{
	{"1MiB", "1 MiB body", "a 1 MiB body"}, {"64MiB", "64 MiB body", "a 64 MiB body"},
	{"512MiB", "512 MiB body", "a 512 MiB body"}, {"15k-steps", "15,000 small steps", "15,000 small steps"},
	{"200k-steps", "200,000 small steps", "200,000 small steps"},
}

// maxColdStartMS bounds reading every cassette of the 10k-interaction run,
// what ls, score, diff and replay --check do before anything else.
const maxColdStartMS = 350

// minStaticRatio is replay's throughput floor against the static server: near the
// machine's limit, at one connection and at sixteen.
const minStaticRatio = 0.9

type scoringFloor struct {
	MS  float64
	Met bool
}

type recordRow struct {
	Label, Payload      string
	C                   int
	P50, P99, RPS, Diff float64
	Direct              bool // the baseline row, which adds nothing
}

type keepingRow struct {
	Payload      string
	Diff, OW, PT float64
}

type journalRow struct{ Append, Handler float64 } // µs

// syncRow is the journal syncs of the overwrite runs (the recording logs
// them at exit): per exchange, and the mean time of one.
type syncRow struct {
	Payload             string
	C                   int
	PerExchange, MeanMS float64
}

type latencyRow struct {
	Label         string
	P50, P99, Max float64
}

type coldRow struct {
	Set                              string
	Files, YAML, StartMS, RSS, Ratio float64
}

type sizeRow struct {
	Interactions          float64
	C                     int
	P50, P99, RPS, Spread float64
}

type goBenchRow struct {
	Name                       string
	US, MBs, Bytes, Allocs     float64
	HasMBs, HasBytes, HasAlloc bool
}

type machineRow struct {
	CPUs                                              int
	CPU, Memory, Go, Node, Kernel, LoadStart, LoadEnd string
}

func newReportData(rc *reportConfig, r *results, gb []gobench) *reportData {
	d := &reportData{
		Date: rc.date.Format("2006-01-02 15:04 MST"), DurMin: rc.duration / 60, DurSec: rc.duration % 60, Reps: rc.reps,
		N: float64(rc.n), Warmup: float64(rc.warmup), RecN: float64(rc.recN), RecWarmup: float64(rc.recN / 10),
		Big: float64(rc.big), RecordNote: recordNote,
		Machine: machineRow{CPUs: rc.host.cpus, CPU: rc.host.cpu, Memory: rc.host.memory, Go: rc.goVersion,
			Node: rc.host.node, Kernel: rc.host.kernel, LoadStart: rc.loadStart, LoadEnd: rc.loadEnd},
	}
	payloads := []string{"json", "sse"}

	for _, payload := range payloads {
		for _, c := range []int{1, 16} {
			base, _ := r.cell("replay", "static", payload, c)
			for _, t := range replayTargets {
				x, ok := r.cell("replay", t.id, payload, c)
				if !ok || t.id == "static-event" && payload != "sse" {
					continue
				}
				d.Replay = append(d.Replay, replayRow{Label: t.label, Payload: payload, C: c,
					P50: x.p50, P50x: x.p50 / base.p50, P99: x.p99, P99x: x.p99 / base.p99,
					RPS: x.rps, RPSx: x.rps / base.rps, Spread: 100 * x.spread})
			}
		}
	}

	// Floors, and which kinds were missed.
	var missed []string
	for _, c := range []int{16, 1} {
		for _, payload := range payloads {
			a, _ := r.cell("replay", "adkproxy", payload, c)
			s, _ := r.cell("replay", "static", payload, c)
			f := ratioFloor{Payload: payload, C: c, A: a.rps, B: s.rps, Ratio: a.rps / s.rps}
			f.Met = f.Ratio >= minStaticRatio
			d.StaticFloors = append(d.StaticFloors, f)
			if !f.Met {
				missed = append(missed, "throughput")
			}
		}
	}
	for _, peer := range []string{"proxay", "talkback"} {
		for _, payload := range payloads {
			a, _ := r.cell("replay", "adkproxy", payload, 16)
			x, _ := r.cell("replay", peer, payload, 16)
			s, _ := r.cell("replay", "static", payload, 16)
			f := peerFloor{ratioFloor: ratioFloor{Payload: payload, C: 16, A: a.rps, B: x.rps, Ratio: a.rps / x.rps}, Peer: peer,
				PeerX: x.rps / s.rps, Floor3: 3 * x.rps / s.rps, AdkX: a.rps / s.rps}
			f.Met = f.Ratio >= 3
			f.Gap = f.Ratio < 3.6 // missed, or within the noise of missing
			d.PeerFloors = append(d.PeerFloors, f)
			if !f.Met {
				missed = append(missed, "throughput")
			}
		}
	}
	for _, payload := range payloads {
		a, _ := r.cell("replay", "adkproxy", payload, 1)
		s, _ := r.cell("replay", "static", payload, 1)
		f := latencyFloor{Payload: payload, A: a.p50, Static: s.p50, Diff: a.p50 - s.p50}
		f.Met = f.Diff <= 200
		d.LatencyFloors = append(d.LatencyFloors, f)
		if !f.Met {
			missed = append(missed, "latency")
		}
	}
	d.SSEFloor = sseFloor{P50: r.measure("ssedelay/adkproxy-record", "p50_us"), P99: r.measure("ssedelay/adkproxy-record", "p99_us"),
		Max: r.measure("ssedelay/adkproxy-record", "max_us")}
	d.SSEFloor.Met = d.SSEFloor.P99 <= 5000
	if !d.SSEFloor.Met {
		missed = append(missed, "sse")
	}
	bigName := strconv.Itoa(rc.big)
	for _, c := range []int{16, 1} {
		small, _ := r.cell("size", "10", "mix", c)
		large, _ := r.cell("size", bigName, "mix", c)
		f := ratioFloor{C: c, A: large.rps, B: small.rps, Ratio: large.rps / small.rps}
		f.Met = f.Ratio >= 0.95
		d.SizeFloors = append(d.SizeFloors, f)
		if !f.Met {
			missed = append(missed, "size")
		}
	}
	for _, set := range []string{"10k-one-file", "10k-500-files"} {
		id := "coldstart/" + set
		f := coldFloor{Set: set, MS: r.measure(id, "startup_ms"), RSS: r.measure(id, "vmhwm_mb"), YAML: r.measure(id, "yaml_mb")}
		f.Ratio = f.RSS / f.YAML
		f.MetTime, f.MetMemory = f.MS <= maxColdStartMS, f.RSS <= 3*f.YAML
		d.ColdFloors = append(d.ColdFloors, f)
		if !f.MetTime || !f.MetMemory {
			missed = append(missed, "coldstart")
		}
	}
	if alone, among := "coldstart/first-answer-alone", "coldstart/first-answer-among-500"; len(r.measures[alone]) > 0 && len(r.measures[among]) > 0 {
		f := ratioFloor{A: r.measure(among, "first_answer_ms"), B: r.measure(alone, "first_answer_ms")}
		f.Ratio = f.A / f.B
		f.Met = f.Ratio <= 1.5
		d.FirstAnswerFloor = &f
		if !f.Met {
			missed = append(missed, "coldstart")
		}
	}
	for _, set := range []string{"16MiB", "64MiB"} {
		id := "recordrss/" + set
		if len(r.measures[id]) == 0 {
			continue
		}
		f := memoryFloor{Set: set, Label: strings.TrimSuffix(set, "MiB") + " MiB", AnswerMB: r.measure(id, "answer_mb"), Base: r.measure(id, "base_mb"),
			Peak: r.measure(id, "peak_mb"), Ratio: r.measure(id, "ratio")}
		f.Met = f.Ratio <= maxRecordRSS
		d.MemoryFloors = append(d.MemoryFloors, f)
		d.RecordRSS = append(d.RecordRSS, f)
		if !f.Met {
			missed = append(missed, "recordrss")
		}
	}
	for _, ls := range loadSets {
		for _, command := range []string{"ls", "replay"} {
			id := "loadrss/" + ls.set + "/" + command
			if len(r.measures[id]) == 0 {
				continue
			}
			f := loadFloor{Set: ls.set, Label: ls.label, Of: ls.of, Command: command, FileMB: r.measure(id, "file_mb"),
				Base: r.measure(id, "base_mb"), Peak: r.measure(id, "peak_mb"), Ratio: r.measure(id, "ratio")}
			if command == "replay" {
				f.Command = "replay --check"
			}
			f.Met = f.Ratio <= maxLoadRSS
			d.LoadRSS = append(d.LoadRSS, f)
			if !f.Met {
				missed = append(missed, "loadrss")
			}
		}
	}
	if alone, among := findBench(gb, "BenchmarkStart/cassettes=1"), findBench(gb, "BenchmarkStart/cassettes=400"); alone != nil && among != nil {
		f := ratioFloor{A: among.ns / 1e3, B: alone.ns / 1e3}
		f.Ratio = f.A / f.B
		f.Met = f.Ratio <= 2
		d.StartFloor = &f
		if !f.Met {
			missed = append(missed, "coldstart")
		}
	}
	for _, g := range gb {
		if g.name == "BenchmarkEvaluate10kInvocations" {
			f := scoringFloor{MS: g.ns / 1e6, Met: g.ns <= 2e9}
			d.ScoringFloors = append(d.ScoringFloors, f)
			if !f.Met {
				missed = append(missed, "scoring")
			}
		}
	}

	if floors, rows := liveFigures(gb); len(rows) > 0 {
		d.LiveFloors, d.Live = floors, rows
		for _, f := range floors {
			if !f.Met {
				missed = append(missed, "live")
			}
		}
	}
	if row, ok := simulateFigures(r); ok {
		d.Simulate = &row
		if row.Judged && !row.Met {
			missed = append(missed, "simulate")
		}
	}
	if f, rows, ok := interceptFigures(gb); ok {
		d.InterceptFloors, d.Intercept = []ratioFloor{f}, rows
		if !f.Met {
			missed = append(missed, "intercept")
		}
	}

	// Recording.
	recordPaths := []struct{ id, label string }{
		{"direct", "direct to static"},
		{"revproxy", "httputil.ReverseProxy (reference forwarder)"},
		{"adkproxy-passthrough", "adkproxy record --mode passthrough"},
		{"adkproxy-overwrite", "adkproxy record (overwrite: journal + fsync)"},
		{"adkproxy-overwrite-untagged", "adkproxy record (overwrite), untagged"},
		{"revproxy-distinct", "httputil.ReverseProxy, distinct turns"},
		{"adkproxy-passthrough-distinct", "adkproxy record --mode passthrough, distinct turns"},
		{"adkproxy-overwrite-distinct", "adkproxy record (overwrite), distinct turns"},
	}
	for _, payload := range payloads {
		for _, c := range []int{1, 16} {
			direct, _ := r.cell("record", "direct", payload, c)
			for _, t := range recordPaths {
				x, ok := r.cell("record", t.id, payload, c)
				if !ok {
					continue
				}
				d.Record = append(d.Record, recordRow{Label: t.label, Payload: payload, C: c,
					P50: x.p50, P99: x.p99, RPS: x.rps, Diff: x.p50 - direct.p50, Direct: t.id == "direct"})
			}
		}
	}
	for _, payload := range payloads {
		ow, _ := r.cell("record", "adkproxy-overwrite", payload, 1)
		pt, _ := r.cell("record", "adkproxy-passthrough", payload, 1)
		d.Keeping = append(d.Keeping, keepingRow{Payload: payload, Diff: ow.p50 - pt.p50, OW: ow.p50, PT: pt.p50})
	}
	for _, g := range gb {
		if g.name == "BenchmarkJournalAppend" {
			rj, rp := math.NaN(), math.NaN()
			for _, h := range gb {
				switch h.name {
				case "BenchmarkRecordJSON":
					rj = h.ns
				case "BenchmarkRecordPassthroughJSON":
					rp = h.ns
				}
			}
			d.Journal = append(d.Journal, journalRow{Append: g.ns / 1e3, Handler: (rj - rp) / 1e3})
		}
	}
	for _, payload := range payloads {
		// The same calls each time, then a distinct first turn per call.
		for _, calls := range []string{"", "-distinct"} {
			for _, c := range []int{1, 16} {
				pt, ok1 := r.cell("record", "adkproxy-passthrough"+calls, payload, c)
				rp, ok2 := r.cell("record", "revproxy"+calls, payload, c)
				if ok1 && ok2 {
					f := ratioFloor{Payload: payload, C: c, A: pt.rps, B: rp.rps, Ratio: pt.rps / rp.rps, Distinct: calls != ""}
					f.Met = f.Ratio >= minForwardRatio
					d.ForwardFloors = append(d.ForwardFloors, f)
					if !f.Met {
						missed = append(missed, "recording")
					}
				}
			}
		}
		ow, ok1 := r.cell("record", "adkproxy-overwrite", payload, 16)
		pt, ok2 := r.cell("record", "adkproxy-passthrough", payload, 16)
		if ok1 && ok2 {
			f := ratioFloor{Payload: payload, C: 16, A: ow.rps, B: pt.rps, Ratio: ow.rps / pt.rps}
			f.Met = f.Ratio >= minKeepRatio
			d.KeepFloors = append(d.KeepFloors, f)
			if !f.Met {
				missed = append(missed, "recording")
			}
		}
	}
	for _, payload := range payloads {
		for _, c := range []int{1, 16} {
			id := fmt.Sprintf("journal-syncs/overwrite-%s-%d", payload, c)
			if per := r.measure(id, "per_exchange"); !math.IsNaN(per) {
				d.Syncs = append(d.Syncs, syncRow{Payload: payload, C: c, PerExchange: per, MeanMS: r.measure(id, "mean_sync_ms")})
			}
		}
	}
	ow16, _ := r.cell("record", "adkproxy-overwrite", "json", 16)
	pt16, _ := r.cell("record", "adkproxy-passthrough", "json", 16)
	ut1, _ := r.cell("record", "adkproxy-overwrite-untagged", "json", 1)
	ow1, _ := r.cell("record", "adkproxy-overwrite", "json", 1)
	d.OW16, d.PT16, d.UT1, d.OW1 = ow16.rps, pt16.rps, ut1.p50, ow1.p50

	for _, t := range []struct{ id, label string }{{"direct", "client → upstream"}, {"adkproxy-record", "client → adkproxy record → upstream"}} {
		id := "ssedelay/" + t.id
		d.SSE = append(d.SSE, latencyRow{Label: t.label, P50: r.measure(id, "p50_us"), P99: r.measure(id, "p99_us"), Max: r.measure(id, "max_us")})
	}
	for _, set := range []string{"10k-one-file", "10k-500-files", bigLabel(rc.big) + "-one-file"} {
		id := "coldstart/" + set
		if len(r.measures[id]) == 0 {
			continue
		}
		rss, yamlMB := r.measure(id, "vmhwm_mb"), r.measure(id, "yaml_mb")
		d.ColdStart = append(d.ColdStart, coldRow{Set: set, Files: r.measure(id, "files"), YAML: yamlMB,
			StartMS: r.measure(id, "startup_ms"), RSS: rss, Ratio: rss / yamlMB})
	}
	for _, c := range []int{1, 16} {
		for _, t := range []string{"10", bigName} {
			x, ok := r.cell("size", t, "mix", c)
			if !ok {
				continue
			}
			d.Size = append(d.Size, sizeRow{Interactions: mustFloat(t), C: c, P50: x.p50, P99: x.p99, RPS: x.rps, Spread: 100 * x.spread})
		}
	}
	for _, g := range gb {
		d.GoBench = append(d.GoBench, goBenchRow{Name: strings.TrimPrefix(g.name, "Benchmark"), US: g.ns / 1e3,
			MBs: g.mbs, Bytes: g.bytes, Allocs: g.allocs, HasMBs: g.hasMBs, HasBytes: g.hasBytes, HasAlloc: g.hasAlloc})
	}

	// Misses: the profiles and plans of what was missed.
	d.Missed = len(missed) > 0
	if slices.Contains(missed, "throughput") || slices.Contains(missed, "latency") || slices.Contains(missed, "size") {
		d.ProfileReplay, d.PlanReplay = profileText(rc.profReplay), planReplay
	}
	if slices.Contains(missed, "coldstart") {
		one, suite := "coldstart/10k-one-file", "coldstart/10k-500-files"
		d.ProfileLoad = profileText(rc.profLoad)
		d.PlanColdStart = strings.NewReplacer(
			"{{rss-one}}", f1(r.measure(one, "vmhwm_mb")/r.measure(one, "yaml_mb")),
			"{{rss-suite}}", f1(r.measure(suite, "vmhwm_mb")/r.measure(suite, "yaml_mb")),
			"{{yaml-mb}}", f0(r.measure(one, "yaml_mb")),
		).Replace(planColdStart)
	}
	if slices.Contains(missed, "recordrss") {
		d.PlanRecordRSS = planRecordRSS
	}
	if slices.Contains(missed, "loadrss") {
		d.PlanLoadRSS = planLoadRSS
	}
	if slices.Contains(missed, "recording") {
		d.PlanRecording = planRecording
	}
	if slices.Contains(missed, "sse") {
		d.PlanSSE = planSSE
	}
	return d
}

// findBench is the Go benchmark called name, or nil.
func findBench(gb []gobench, name string) *gobench {
	for i := range gb {
		if gb[i].name == name {
			return &gb[i]
		}
	}
	return nil
}
