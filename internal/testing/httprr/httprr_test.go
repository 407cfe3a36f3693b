package httprr_test

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/httprr"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// What the shared Gemini traffic holds; counted once by hand and pinned here
// so that a fixture silently going missing or unparsed fails the test.
const (
	wantFiles     = 47
	wantExchanges = 126
	wantSSE       = 21
)

// trafficDir returns the shared fixture folder. When it is missing the test
// is skipped, or fails when CI is set (testutil.Require).
func trafficDir(t testing.TB) string {
	dir := filepath.Join("..", "..", "..", "..", "shared", "fixtures", "gemini-traffic")
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		testutil.Require(t, "the shared fixture folder "+dir)
	} else if err != nil {
		t.Fatal(err)
	}
	return dir
}

func trafficFiles(t testing.TB) []string {
	dir := trafficDir(t)
	files, err := filepath.Glob(filepath.Join(dir, "*.httprr"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no *.httprr files in %s", dir)
	}
	return files
}

func isEventStream(h map[string][]string) bool {
	ct := ""
	if v := h["Content-Type"]; len(v) > 0 {
		ct = v[0]
	}
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == "text/event-stream"
}

// rawRecord is one record cut out of a trace by a deliberately simple,
// independent reader, to check the parser's bodies against the bytes.
type rawRecord struct {
	start    int // offset of the length line
	req, rsp []byte
}

func splitRaw(t *testing.T, data []byte) []rawRecord {
	t.Helper()
	first := bytes.IndexByte(data, '\n')
	if first < 0 || string(data[:first]) != httprr.Magic {
		t.Fatalf("no %q line", httprr.Magic)
	}
	var out []rawRecord
	off := first + 1
	for off < len(data) {
		nl := bytes.IndexByte(data[off:], '\n')
		if nl < 0 {
			t.Fatalf("no end of length line at %d", off)
		}
		var reqLen, rspLen int
		if _, err := fmt.Sscanf(string(data[off:off+nl]), "%d %d", &reqLen, &rspLen); err != nil {
			t.Fatalf("length line at %d: %v", off, err)
		}
		body := off + nl + 1
		if body+reqLen+rspLen > len(data) {
			t.Fatalf("record at %d runs past the end", off)
		}
		out = append(out, rawRecord{start: off, req: data[body : body+reqLen], rsp: data[body+reqLen : body+reqLen+rspLen]})
		off = body + reqLen + rspLen
	}
	return out
}

// bodyOf returns what follows the header block of a raw HTTP message.
func bodyOf(raw []byte) []byte {
	i := bytes.Index(raw, []byte("\r\n\r\n"))
	if i < 0 {
		return nil
	}
	return raw[i+4:]
}

func TestParseFixtures(t *testing.T) {
	files := trafficFiles(t)
	exchanges, sse := 0, 0
	for _, file := range files {
		xs, err := httprr.ParseFile(file)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		raw := splitRaw(t, data)
		if len(raw) != len(xs) {
			t.Errorf("%s: parsed %d exchanges, the file has %d records", file, len(xs), len(raw))
			continue
		}
		if len(xs) == 0 {
			t.Errorf("%s: no exchanges", file)
		}
		for i, x := range xs {
			where := fmt.Sprintf("%s record %d", filepath.Base(file), i+1)
			exchanges++
			req, rsp := x.Request, x.Response
			if req.Method != "POST" || req.URL == nil || req.URL.Scheme != "https" || req.URL.Host == "" || !strings.HasPrefix(req.URL.Path, "/v1") {
				t.Errorf("%s: unexpected request line %s %v", where, req.Method, req.URL)
			}
			if req.Host != req.URL.Host {
				t.Errorf("%s: Host %q differs from the URL's host %q", where, req.Host, req.URL.Host)
			}
			if cl := req.Header.Get("Content-Length"); cl != strconv.Itoa(len(req.Body)) {
				t.Errorf("%s: request body has %d bytes, Content-Length says %s", where, len(req.Body), cl)
			}
			// The parsed bodies must be exactly the bytes after the headers.
			if !bytes.Equal(req.Body, bodyOf(raw[i].req)) {
				t.Errorf("%s: request body differs from the file's bytes", where)
			}
			if !bytes.Equal(rsp.Body, bodyOf(raw[i].rsp)) {
				t.Errorf("%s: response body (%d bytes) differs from the file's bytes (%d)", where, len(rsp.Body), len(bodyOf(raw[i].rsp)))
			}
			if len(rsp.Body) == 0 || rsp.Status < 200 || rsp.Status > 599 || rsp.Header.Get("Content-Type") == "" {
				t.Errorf("%s: implausible response: status %d, %d body bytes, Content-Type %q",
					where, rsp.Status, len(rsp.Body), rsp.Header.Get("Content-Type"))
			}
			if isEventStream(rsp.Header) {
				sse++
				if !bytes.HasPrefix(rsp.Body, []byte("data: ")) || !bytes.HasSuffix(rsp.Body, []byte("\r\n\r\n")) {
					t.Errorf("%s: SSE body is not a series of CRLF-terminated data events", where)
				}
			}
		}
	}
	if len(files) != wantFiles || exchanges != wantExchanges || sse != wantSSE {
		t.Errorf("got %d files, %d exchanges, %d SSE exchanges; want %d, %d, %d",
			len(files), exchanges, sse, wantFiles, wantExchanges, wantSSE)
	}
	t.Logf("%d files, %d exchanges, %d of them SSE", len(files), exchanges, sse)
}

// smallestFixture returns the shortest trace with more than one exchange.
func smallestFixture(t *testing.T) []byte {
	var best []byte
	for _, file := range trafficFiles(t) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if xs, err := httprr.Parse(data); err == nil && len(xs) > 1 && (best == nil || len(data) < len(best)) {
			best = data
		}
	}
	if best == nil {
		t.Fatal("no fixture with several exchanges")
	}
	return best
}

// TestParseTruncated cuts a real trace at every byte: a cut on a record
// boundary is a valid shorter trace, any other cut must be an error.
func TestParseTruncated(t *testing.T) {
	data := smallestFixture(t)
	raw := splitRaw(t, data)
	boundaries := map[int]int{len(httprr.Magic) + 1: 0} // offset -> records before it
	for i := 1; i < len(raw); i++ {
		boundaries[raw[i].start] = i
	}
	for n := 0; n < len(data); n++ {
		xs, err := httprr.Parse(data[:n])
		if want, ok := boundaries[n]; ok {
			if err != nil || len(xs) != want {
				t.Errorf("cut at record boundary %d: got %d exchanges, err %v; want %d, nil", n, len(xs), err, want)
			}
			continue
		}
		var perr *httprr.Error
		if !errors.As(err, &perr) {
			t.Fatalf("cut at %d of %d: got %d exchanges and error %v; want an *httprr.Error", n, len(data), len(xs), err)
		}
		if xs != nil {
			t.Errorf("cut at %d: exchanges returned along with an error", n)
		}
	}
}

// TestParseLengthOffByOne garbles each length line by one byte either way.
func TestParseLengthOffByOne(t *testing.T) {
	data := smallestFixture(t)
	raw := splitRaw(t, data)
	for i, r := range raw {
		nl := r.start + bytes.IndexByte(data[r.start:], '\n')
		for _, delta := range [][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, -1}, {-1, 1}} {
			line := fmt.Sprintf("%d %d", len(r.req)+delta[0], len(r.rsp)+delta[1])
			bad := append(append(append([]byte{}, data[:r.start]...), line...), data[nl:]...)
			_, err := httprr.Parse(bad)
			var perr *httprr.Error
			if !errors.As(err, &perr) {
				t.Errorf("record %d with lengths %q: got error %v, want an *httprr.Error", i+1, line, err)
				continue
			}
			if perr.Record != i+1 && perr.Record != i+2 {
				t.Errorf("record %d with lengths %q: error names record %d: %v", i+1, line, perr.Record, err)
			}
		}
	}
}

func record(req, rsp string) string { return fmt.Sprintf("%d %d\n%s%s", len(req), len(rsp), req, rsp) }

const (
	okReq = "POST https://example.com/v1/x?alt=sse HTTP/1.1\r\nHost: example.com\r\nContent-Length: 2\r\n\r\n{}"
	okRsp = "HTTP/2.0 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\ndata: {}\r\n\r\n"
)

func TestParseSynthetic(t *testing.T) {
	data := httprr.Magic + "\n" + record(okReq, okRsp) + record(okReq, "HTTP/1.1 404 Not Found\r\nContent-Length: 3\r\n\r\nno\n")
	xs, err := httprr.Parse([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(xs) != 2 {
		t.Fatalf("got %d exchanges, want 2", len(xs))
	}
	x := xs[0]
	if x.Request.Method != "POST" || x.Request.URL.String() != "https://example.com/v1/x?alt=sse" ||
		string(x.Request.Body) != "{}" || x.Request.Host != "example.com" {
		t.Errorf("request: %+v", x.Request)
	}
	if x.Response.Status != 200 || string(x.Response.Body) != "data: {}\r\n\r\n" ||
		x.Response.Header.Get("Content-Type") != "text/event-stream" {
		t.Errorf("response: %+v", x.Response)
	}
	if xs[1].Response.Status != 404 || string(xs[1].Response.Body) != "no\n" {
		t.Errorf("second response: %+v", xs[1].Response)
	}
	if xs, err := httprr.Parse([]byte(httprr.Magic + "\n")); err != nil || len(xs) != 0 {
		t.Errorf("empty trace: %d exchanges, %v", len(xs), err)
	}
}

func TestParseErrors(t *testing.T) {
	good := record(okReq, okRsp)
	tests := []struct {
		name   string
		data   string
		record int
		want   string // in the message
	}{
		{"empty", "", 0, "must start with"},
		{"wrong magic", "httprr trace v2\n" + good, 0, "must start with"},
		{"magic without newline", httprr.Magic, 0, "must start with"},
		{"no newline after lengths", httprr.Magic + "\n12 34", 1, "no end of line"},
		{"one length", httprr.Magic + "\n12\n", 1, "bad length line"},
		{"three lengths", httprr.Magic + "\n1 2 3\n", 1, "bad length line"},
		{"negative", httprr.Magic + "\n-1 2\n", 1, "bad length line"},
		{"signed", httprr.Magic + "\n+1 2\n", 1, "bad length line"},
		{"letters", httprr.Magic + "\nab 2\n", 1, "bad length line"},
		{"overflow", httprr.Magic + "\n99999999999999999999 1\n", 1, "bad length line"},
		{"huge", httprr.Magic + "\n9223372036854775807 9223372036854775807\nx", 1, "past the end of the file"},
		{"past end", httprr.Magic + "\n" + good + "10 10\nshort", 2, "past the end of the file"},
		{"garbage request", httprr.Magic + "\n" + record("garbage\r\n\r\n", okRsp), 1, "unparsable request"},
		{"empty request", httprr.Magic + "\n" + record("", okRsp), 1, "unparsable request"},
		{"short request body", httprr.Magic + "\n" + record(strings.Replace(okReq, "Length: 2", "Length: 5", 1), okRsp), 1, "unparsable request"},
		{"extra request bytes", httprr.Magic + "\n" + record(okReq+"zz", okRsp), 1, "unexpected bytes"},
		{"garbage response", httprr.Magic + "\n" + good + record(okReq, "HTTP/2.0 two hundred\r\n\r\n"), 2, "unparsable response"},
		{"empty response", httprr.Magic + "\n" + record(okReq, ""), 1, "unparsable response"},
		{"short response body", httprr.Magic + "\n" + record(okReq, "HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nab"), 1, "unparsable response"},
		{"extra response bytes", httprr.Magic + "\n" + record(okReq, "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nab"), 1, "unexpected bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			xs, err := httprr.Parse([]byte(tt.data))
			var perr *httprr.Error
			if !errors.As(err, &perr) {
				t.Fatalf("got %d exchanges, error %v; want an *httprr.Error", len(xs), err)
			}
			if xs != nil {
				t.Errorf("exchanges returned along with the error")
			}
			if perr.Record != tt.record || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q (record %d); want record %d and %q", err, perr.Record, tt.record, tt.want)
			}
			wantWhere := "header"
			if tt.record > 0 {
				wantWhere = fmt.Sprintf("record %d ", tt.record)
			}
			if !strings.Contains(err.Error(), wantWhere) {
				t.Errorf("error %q does not say %q", err, wantWhere)
			}
		})
	}
}

func TestParseFileNamesFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.httprr")
	if err := os.WriteFile(path, []byte(httprr.Magic+"\nx y\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := httprr.ParseFile(path)
	var perr *httprr.Error
	if !errors.As(err, &perr) || perr.File != path || !strings.HasPrefix(err.Error(), path+": ") {
		t.Errorf("ParseFile error %v does not name %s", err, path)
	}
	if _, err := httprr.ParseFile(filepath.Join(t.TempDir(), "absent.httprr")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: got %v, want ErrNotExist", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(httprr.Magic + "\n" + record(okReq, okRsp)))
	f.Add([]byte(httprr.Magic + "\n" + record(okReq, okRsp) + record(okReq, "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\na")))
	f.Add([]byte(httprr.Magic + "\n1 2\nabc"))
	f.Add([]byte(httprr.Magic + "\n"))
	f.Add([]byte(""))
	// A real trace too, when the shared fixtures are present; the target
	// itself must run without them.
	if data, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "shared", "fixtures", "gemini-traffic",
		"model_gemini__TestModel_GenerateStream_ok.httprr")); err == nil {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		xs, err := httprr.Parse(data)
		if err != nil {
			var perr *httprr.Error
			if !errors.As(err, &perr) {
				t.Fatalf("error of type %T, want *httprr.Error: %v", err, err)
			}
			if xs != nil || err.Error() == "" {
				t.Fatalf("bad error result: %d exchanges, %q", len(xs), err)
			}
			return
		}
		total := len(httprr.Magic) + 1
		for _, x := range xs {
			if x.Request.URL == nil || x.Request.Header == nil || x.Response.Header == nil {
				t.Fatalf("incomplete exchange: %+v", x)
			}
			total += len(x.Request.Body) + len(x.Response.Body)
		}
		if total > len(data) {
			t.Fatalf("bodies hold %d bytes, more than the %d-byte input", total, len(data))
		}
	})
}

// TestResponseEvents: a stream splits after each "\r\n\r\n", keeping an
// unterminated tail; other bodies have no events.
func TestResponseEvents(t *testing.T) {
	sse := httprr.Response{Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: []byte("data: 1\r\n\r\ndata: 2\r\n\r\ndata: 3")}
	got := sse.Events()
	if len(got) != 3 || string(got[0]) != "data: 1\r\n\r\n" || string(got[1]) != "data: 2\r\n\r\n" || string(got[2]) != "data: 3" {
		t.Fatalf("events %q", got)
	}
	if evs := (httprr.Response{Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte("{}")}).Events(); evs != nil {
		t.Fatalf("JSON body split into %q", evs)
	}
}
