// Reading a bench run's results: loadgen runs and measurements (JSON lines)
// and go test -bench output, each reduced to the median of its repetitions.

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
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
			id := m.Kind + "/" + m.Tags["set"] + m.Tags["path"] + m.Tags["server"]
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
	frames                     float64 // frames/s, from BenchmarkLiveReplay (live.go)
}

func readGoBench(path string) ([]gobench, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	type acc struct{ ns, mbs, bytes, allocs, frames []float64 }
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
			case "frames/s":
				a.frames = append(a.frames, v)
			}
		}
	}
	var out []gobench
	for _, n := range order {
		a := byName[n]
		out = append(out, gobench{name: n, ns: median(a.ns), mbs: median(a.mbs), bytes: median(a.bytes), allocs: median(a.allocs),
			hasMBs: len(a.mbs) > 0, hasBytes: len(a.bytes) > 0, hasAlloc: len(a.allocs) > 0, frames: median(a.frames)})
	}
	return out, nil
}
