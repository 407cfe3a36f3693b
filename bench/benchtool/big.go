// Large cassettes for the benchmarks: loadgen's request mix padded to N
// interactions, and N interactions copied from the real Gemini fixtures,
// written a chunk of sessions at a time so 100k interactions fit in memory.

package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/data/conversation"
	"github.com/adkproxy/adkproxy/internal/testing/httprr"
	"github.com/adkproxy/adkproxy/internal/testing/workload"
	"github.com/adkproxy/adkproxy/internal/wire"
	"github.com/adkproxy/adkproxy/matcher"
)

// mixCassette writes one cassette of n interactions whose first ones are
// the requests loadgen's -payload mix sends (workload.MixRequest(0..mix-1)),
// so the same request mix can be replayed from a small and a large
// cassette. Every interaction is its own session, placed here directly:
// running the organiser over 100k unrelated sessions would take longer than
// the measurement.
func mixCassette(args []string) error {
	fs := flag.NewFlagSet("mix", flag.ContinueOnError)
	dir := fs.String("dir", "", "cassette `DIR`")
	n := fs.Int("n", 10, "interactions")
	mix := fs.Int("mix", 10, "loadgen's -mix (must be at most -n)")
	filler := fs.Int("traffic", 0, "add this many interactions shaped like the real fixtures (see traffic) to the same cassette")
	src := fs.String("fixtures", "", "`DIR` of httprr traces for -traffic (default ../shared/fixtures/gemini-traffic)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dir == "" || *n < *mix || *mix < 1 {
		return fmt.Errorf("need -dir and 1 <= -mix <= -n")
	}
	m := matcher.Default()
	xs := make([]*cassettes.Exchange, *n)
	for i := range xs {
		x := workload.MixExchange(i)
		if c, ok := conversation.Analyze(m, x.Request.Path, x.Request.Body); ok {
			x.Place = &cassettes.Place{Session: i + 1, Invocation: 1, User: c.UserText, Step: c.Step, Agent: "travel_agent"}
		}
		xs[i] = x
	}
	if *filler > 0 {
		traces, err := loadTraces(fixturesDir(*src))
		if err != nil {
			return err
		}
		more, _ := trafficCopies(traces, *filler, 1)
		for _, x := range more[0] {
			if x.Place != nil {
				x.Place.Session += *n
			}
		}
		xs = append(xs, more[0]...)
	}
	return save(*dir, cassettes.DefaultName, xs)
}

func fixturesDir(flagValue string) string {
	if flagValue != "" {
		return flagValue
	}
	return filepath.Join("..", "shared", "fixtures", "gemini-traffic")
}

// chunk is how many interactions save renders at a time; rendering a whole
// 100k-interaction cassette at once would hold over 10 GB.
const chunk = 10000

// save writes a cassette with cassettes.Save, or, when it is large, with
// cassettes.Marshal a chunk of sessions at a time: the list items of the
// chunks' "sessions:" are joined under the first chunk's header. xs must be
// in session order, every one placed.
func save(dir, name string, xs []*cassettes.Exchange) error {
	rel, err := cassettes.FileName(name)
	if err != nil {
		return err
	}
	path := filepath.Join(dir, rel)
	if len(xs) <= 2*chunk {
		return cassettes.Save(path, &cassettes.Cassette{Name: name, Exchanges: xs, Trajectories: wire.StepOf}, nil)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := path + ".partial"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	for start := 0; start < len(xs); {
		end := min(start+chunk, len(xs))
		for end < len(xs) && xs[end].Place != nil && xs[end].Place.Session == xs[end-1].Place.Session {
			end++ // keep a session in one piece
		}
		for _, x := range xs[start:end] {
			if x.Place == nil {
				f.Close()
				return fmt.Errorf("interaction without a place: cannot write %s in chunks", path)
			}
		}
		data, err := cassettes.Marshal(&cassettes.Cassette{Name: name, Exchanges: xs[start:end], Trajectories: wire.StepOf})
		if err != nil {
			f.Close()
			return err
		}
		if start > 0 {
			_, items, ok := bytes.Cut(data, []byte("\nsessions:\n"))
			if !ok {
				f.Close()
				return fmt.Errorf("unexpected cassette layout while writing %s", path)
			}
			data = items
		}
		if _, err := f.Write(data); err != nil {
			f.Close()
			return err
		}
		start = end
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// trafficCassette writes n interactions shaped like real traffic: the
// exchanges of the Gemini fixtures (function calls with thought
// signatures, delegation, SSE streams, errors), copied until there are n.
// Each copy gets its own user texts, so every copy is a distinct recording
// in sessions of its own. With -files 1 everything goes into one
// cassette; otherwise each copy of each fixture file is a cassette of its
// own (one cassette per test, as a real suite is recorded), and copies are
// spread over at most -files cassettes.
func trafficCassette(args []string) error {
	fs := flag.NewFlagSet("traffic", flag.ContinueOnError)
	dir := fs.String("dir", "", "cassette `DIR`")
	n := fs.Int("n", 10000, "interactions")
	files := fs.Int("files", 1, "number of cassette files")
	src := fs.String("fixtures", "", "`DIR` of httprr traces (default ../shared/fixtures/gemini-traffic)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dir == "" || *n < 1 || *files < 1 {
		return fmt.Errorf("need -dir, -n >= 1 and -files >= 1")
	}
	traces, err := loadTraces(fixturesDir(*src))
	if err != nil {
		return err
	}
	perFile, copies := trafficCopies(traces, *n, *files)
	total := 0
	for _, xs := range perFile {
		total += len(xs)
	}
	for i, xs := range perFile {
		if len(xs) == 0 {
			continue
		}
		name := cassettes.DefaultName
		if *files > 1 {
			name = fmt.Sprintf("suite/test-%04d", i)
		}
		if err := save(*dir, name, xs); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "benchtool traffic: %d interactions from %d traces (%d copies) in %d cassette(s)\n",
		total, len(traces), copies, min(*files, copies))
	return nil
}

// trafficCopies copies the traces round-robin until there are n
// interactions, spread over `files` lists (copy k goes to list k % files);
// sessions are numbered on within each list. It returns the lists and the
// number of copies made.
func trafficCopies(traces []*trace, n, files int) ([][]*cassettes.Exchange, int) {
	perFile := make([][]*cassettes.Exchange, files)
	sessions := make([]int, files)
	total, copyNo := 0, 0
	for total < n {
		for _, tr := range traces {
			if total >= n {
				break
			}
			xs := tr.copy(copyNo)
			if len(xs) > n-total {
				xs = xs[:n-total]
			}
			f := copyNo % files
			last := sessions[f]
			for _, x := range xs {
				if x.Place != nil {
					x.Place.Session += last
					sessions[f] = max(sessions[f], x.Place.Session)
				}
			}
			perFile[f] = append(perFile[f], xs...)
			total += len(xs)
			copyNo++
		}
	}
	return perFile, copyNo
}

// trace is one fixture file as recorded exchanges, placed by the organizer.
type trace struct {
	xs    []*cassettes.Exchange
	users []string // user texts of its invocations, longest first
}

func loadTraces(dir string) ([]*trace, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.httprr"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("no *.httprr traces in %s", dir)
	}
	sort.Strings(paths)
	var out []*trace
	for _, p := range paths {
		recs, err := httprr.ParseFile(p)
		if err != nil {
			return nil, err
		}
		t := &trace{}
		for _, r := range recs {
			t.xs = append(t.xs, exchangeOf(r))
		}
		conversation.Organize(matcher.Default(), t.xs)
		seen := map[string]bool{}
		for _, x := range t.xs {
			if x.Place != nil && x.Place.User != "" && !seen[x.Place.User] {
				seen[x.Place.User] = true
				t.users = append(t.users, x.Place.User)
			}
		}
		sort.Slice(t.users, func(i, j int) bool { return len(t.users[i]) > len(t.users[j]) })
		out = append(out, t)
	}
	return out, nil
}

// Headers a recording does not keep (see the README's cassette format).
var droppedHeaders = []string{"Content-Length", "Accept-Encoding", "Host", "X-Server-Timeout", "Traceparent", "Tracestate",
	"X-Goog-Api-Key", "Authorization", "X-Goog-User-Project", "Date", "Server-Timing", "Alt-Svc", "Content-Encoding",
	"Connection", "Transfer-Encoding"}

func exchangeOf(r httprr.Exchange) *cassettes.Exchange {
	strip := func(h http.Header) http.Header {
		h = h.Clone()
		for _, k := range droppedHeaders {
			h.Del(k)
		}
		return h
	}
	x := &cassettes.Exchange{
		Request: cassettes.Request{Method: r.Request.Method, Path: r.Request.URL.EscapedPath(),
			Query: r.Request.URL.RawQuery, Header: strip(r.Request.Header), Body: r.Request.Body},
		Response: cassettes.Response{Status: r.Response.Status, Header: strip(r.Response.Header),
			End: cassettes.EndComplete, Latency: 1234 * time.Millisecond},
	}
	if events := r.Response.Events(); events != nil {
		x.Response.Events = []cassettes.Event{}
		for _, ev := range events {
			x.Response.Events = append(x.Response.Events, cassettes.Event{Data: ev, After: 40 * time.Millisecond})
		}
		if n := len(x.Response.Events); n > 0 {
			last := x.Response.Events[n-1].Data
			if !bytes.HasSuffix(last, []byte("\n\n")) && !bytes.HasSuffix(last, []byte("\r\r")) && !bytes.HasSuffix(last, []byte("\r\n\r\n")) {
				x.Response.End = cassettes.EndEOF
			}
		}
	} else {
		x.Response.Body = r.Response.Body
	}
	return x
}

// copy returns copy k of the trace: every user text gets the suffix
// " #k" in the request bodies and in the places, so the copy's requests
// differ from every other copy's.
func (t *trace) copy(k int) []*cassettes.Exchange {
	type swap struct{ old, new []byte }
	var swaps []swap
	rename := map[string]string{}
	for _, u := range t.users {
		nu := fmt.Sprintf("%s #%d", u, k)
		rename[u] = nu
		swaps = append(swaps, swap{jsonString(u), jsonString(nu)})
	}
	out := make([]*cassettes.Exchange, len(t.xs))
	for i, x := range t.xs {
		c := *x
		c.Request.Body = x.Request.Body
		for _, s := range swaps {
			c.Request.Body = bytes.ReplaceAll(c.Request.Body, s.old, s.new)
		}
		if x.Place != nil {
			p := *x.Place
			if nu, ok := rename[p.User]; ok {
				p.User = nu
			}
			c.Place = &p
		}
		out[i] = &c
	}
	return out
}

// jsonString is s as a JSON string literal, the way Go's SDK writes it.
func jsonString(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}
