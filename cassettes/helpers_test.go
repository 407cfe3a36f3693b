package cassettes

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/adkproxy/adkproxy/internal/base/journalfile"
)

// testFile is the file name given to Unmarshal in tests; errors must start
// with it.
const testFile = "file.yaml"

// roundTrip marshals c, unmarshals the result and returns both.
func roundTrip(t testing.TB, c *Cassette) (*Cassette, []byte) {
	t.Helper()
	data, err := Marshal(c)
	if err != nil {
		t.Fatalf("Marshal: %v", err)
	}
	got, err := Unmarshal(testFile, data)
	if err != nil {
		t.Fatalf("Unmarshal of Marshal output: %v\n--- YAML ---\n%s", err, data)
	}
	return got, data
}

// usec is what a duration becomes on disk: whole microseconds.
func usec(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return d.Round(time.Microsecond)
}

// diffCassettes reports the first difference between two cassettes, with
// bodies compared byte for byte, or "" when they are equal.
func diffCassettes(want, got *Cassette) string {
	if want.Name != got.Name {
		return "name: want " + q(want.Name) + ", got " + q(got.Name)
	}
	if len(want.Exchanges) != len(got.Exchanges) {
		return "exchange count differs"
	}
	for i := range want.Exchanges {
		if d := diffExchanges(want.Exchanges[i], got.Exchanges[i]); d != "" {
			return "exchange " + itoa(i+1) + ": " + d
		}
	}
	return ""
}

func diffExchanges(w, g *Exchange) string {
	switch {
	case w.Request.Scheme != g.Request.Scheme || w.Request.Host != g.Request.Host:
		return "scheme and host: want " + q(w.Request.Scheme+"://"+w.Request.Host) + ", got " + q(g.Request.Scheme+"://"+g.Request.Host)
	case w.Request.Method != g.Request.Method:
		return "method: want " + q(w.Request.Method) + ", got " + q(g.Request.Method)
	case w.Request.Path != g.Request.Path:
		return "path: want " + q(w.Request.Path) + ", got " + q(g.Request.Path)
	case w.Request.Query != g.Request.Query:
		return "query: want " + q(w.Request.Query) + ", got " + q(g.Request.Query)
	case !bytes.Equal(w.Request.Body, g.Request.Body):
		return "request body: want " + q(string(w.Request.Body)) + ", got " + q(string(g.Request.Body))
	case w.Response.Status != g.Response.Status:
		return "status: want " + itoa(w.Response.Status) + ", got " + itoa(g.Response.Status)
	case !bytes.Equal(w.Response.Body, g.Response.Body):
		return "response body: want " + q(string(w.Response.Body)) + ", got " + q(string(g.Response.Body))
	case w.Response.Streamed() != g.Response.Streamed():
		return "streamed differs"
	case len(w.Response.Events) != len(g.Response.Events):
		return "event count: want " + itoa(len(w.Response.Events)) + ", got " + itoa(len(g.Response.Events))
	case endOf(w.Response.End) != g.Response.End:
		return "end: want " + q(string(endOf(w.Response.End))) + ", got " + q(string(g.Response.End))
	case fmt.Sprintf("%#v", w.Confirmations) != fmt.Sprintf("%#v", g.Confirmations):
		return fmt.Sprintf("confirmations: want %#v, got %#v", w.Confirmations, g.Confirmations)
	case usec(w.Response.Latency) != g.Response.Latency:
		return "latency: want " + usec(w.Response.Latency).String() + ", got " + g.Response.Latency.String()
	}
	if d := diffHeaders(w.Request.Header, g.Request.Header); d != "" {
		return "request " + d
	}
	if d := diffHeaders(w.Response.Header, g.Response.Header); d != "" {
		return "response " + d
	}
	for i := range w.Response.Events {
		we, ge := w.Response.Events[i], g.Response.Events[i]
		if !bytes.Equal(we.Data, ge.Data) {
			return "event " + itoa(i+1) + " data: want " + q(string(we.Data)) + ", got " + q(string(ge.Data))
		}
		if usec(we.After) != ge.After {
			return "event " + itoa(i+1) + " after: want " + usec(we.After).String() + ", got " + ge.After.String()
		}
	}
	return diffLive(w.Live, g.Live)
}

// diffLive compares two connections' frames.
func diffLive(w, g *Live) string {
	switch {
	case (w == nil) != (g == nil):
		return "one exchange is live, the other is not"
	case w == nil:
		return ""
	case len(w.Frames) != len(g.Frames):
		return "frame count: want " + itoa(len(w.Frames)) + ", got " + itoa(len(g.Frames))
	}
	for i, wf := range w.Frames {
		gf := g.Frames[i]
		if wf.FromClient != gf.FromClient || wf.Kind != gf.Kind || wf.Code != gf.Code || usec(wf.At) != gf.At || !bytes.Equal(wf.Data, gf.Data) || len(wf.Blobs) != len(gf.Blobs) {
			return "frame " + itoa(i+1) + ": want " + q(fmt.Sprintf("%+v", wf)) + ", got " + q(fmt.Sprintf("%+v", gf))
		}
	}
	return ""
}

func diffHeaders(w, g http.Header) string {
	if len(w) != len(g) {
		return "header count: want " + itoa(len(w)) + ", got " + itoa(len(g))
	}
	for k, wv := range w {
		gv, ok := g[k]
		if !ok {
			return "header " + q(k) + " missing"
		}
		if len(wv) != len(gv) {
			return "header " + q(k) + " value count differs"
		}
		for i := range wv {
			if wv[i] != gv[i] {
				return "header " + q(k) + ": want " + q(wv[i]) + ", got " + q(gv[i])
			}
		}
	}
	return ""
}

func endOf(e End) End {
	if e == "" {
		return EndComplete
	}
	return e
}

func q(s string) string {
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return strconv.Quote(s)
}

func itoa(i int) string { return strconv.Itoa(i) }

// assertRoundTrip checks that c survives Marshal and Unmarshal exactly and
// returns the YAML text.
func assertRoundTrip(t testing.TB, c *Cassette) string {
	t.Helper()
	got, data := roundTrip(t, c)
	if d := diffCassettes(c, got); d != "" {
		t.Fatalf("round trip changed the cassette: %s\n--- YAML ---\n%s", d, data)
	}
	return string(data)
}

// simpleExchange is a minimal valid exchange.
func simpleExchange(reqBody, respBody string) *Exchange {
	return &Exchange{
		Request:  Request{Method: "POST", Path: "/v1beta/models/gemini-2.0-flash:generateContent", Body: []byte(reqBody)},
		Response: Response{Status: 200, Body: []byte(respBody), End: EndComplete},
	}
}

// isFormatErr reports whether err wraps want and is a *FormatError.
func isFormatErr(err, want error) bool {
	var fe *FormatError
	return errors.Is(err, want) && errors.As(err, &fe)
}

// writeJournal leaves the journal a recording killed after appending xs
// would, named name, replacing the cassette: each record the exchange's
// JSON, as internal/engine/journal writes it (its
// TestJournalRecordIsTheExchangesJSON holds it to json.Marshal).
func writeJournal(t *testing.T, path, name string, xs ...*Exchange) {
	t.Helper()
	j, err := journalfile.Open(path, name, true)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	for _, x := range xs {
		payload, err := json.Marshal(x)
		if err != nil {
			t.Fatal(err)
		}
		if x.Live != nil && x.Live.ID != "" { // the last record of its connection
			payload = append(append([]byte(journalfile.KeptPrefix(x.Live.ID)), payload...), '}')
		}
		if err := j.Append(payload); err != nil {
			t.Fatal(err)
		}
	}
}

// journalExchange is a placed model call, the i-th of its session.
func journalExchange(i int) *Exchange {
	return &Exchange{
		Request:  Request{Method: "POST", Path: "/v1beta/models/m:generateContent", Body: []byte(`{"n":` + string(rune('0'+i)) + `}`)},
		Response: Response{Status: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte("{}\n")},
		Place:    &Place{Session: 1, Invocation: i, User: "turn", Agent: "a"},
	}
}
