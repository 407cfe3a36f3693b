// benchtool report: writes BENCHMARKS.md by executing the embedded
// report.md.tmpl on the figures of a run.

package main

import (
	"bytes"
	_ "embed"
	"flag"
	"io"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"text/template"
	"time"
)

type reportConfig struct {
	results, gobench, profReplay, profLoad, out, goVersion string
	loadStart, loadEnd                                     string
	duration, reps, n, warmup, recN, big                   int
	date                                                   time.Time // when the last measurement was written
	host                                                   machine
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

//go:embed report.md.tmpl
var reportText string

// reportTemplate writes BENCHMARKS.md from a reportData; the template holds
// the words, reportData the figures and which floors were met.
var reportTemplate = template.Must(template.New("report.md.tmpl").Funcs(template.FuncMap{
	"f0": f0, "f1": f1, "f2": f2, "thousands": thousands, "upper": strings.ToUpper, "mark": metMark,
}).Parse(reportText))

func writeReport(w io.Writer, rc *reportConfig, r *results, gb []gobench) error {
	return reportTemplate.Execute(w, newReportData(rc, r, gb))
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
