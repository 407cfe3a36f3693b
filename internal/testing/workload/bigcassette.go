// Large cassettes for the memory measurements, written as cassettes.Marshal
// writes them but streamed, so that making one never holds it in memory:
// one step whose answer is a body of many megabytes, or many small steps.

package workload

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/wire"
)

// BodyStyle is how the large body of LargeBodyCassette is written.
type BodyStyle int

const (
	// OneLongLine: a Gemini JSON answer whose text is one line of about the
	// whole size, in a block literal (body_encoding: json); the step's
	// trajectory holds the text too, as Save writes it, so the body is
	// about half the file.
	OneLongLine BodyStyle = iota
	// ManyLines: a plain-text answer of 100-byte lines in a block literal,
	// as a tool's long text answer is written.
	ManyLines
	// DoubleQuoted: a plain-text answer on one line that YAML can only
	// carry in double quotes (its words are separated by tabs).
	DoubleQuoted
)

// mark stands in for the large text in the cassette Marshal writes; the
// stream writes the text in its place.
const mark = "ADKPROXY-WORKLOAD-BIG-TEXT"

// LargeBodyCassette writes to w a cassette of one step whose response body
// is about size bytes, written in style, and returns the bytes written.
func LargeBodyCassette(w io.Writer, size int64, style BodyStyle) (int64, error) {
	text, err := cassettes.Marshal(largeBody(style, mark))
	if err != nil {
		return 0, err
	}
	segments := bytes.Split(text, []byte(mark))
	if len(segments) < 2 {
		return 0, fmt.Errorf("workload: the mark is not in the marshalled cassette")
	}
	cw := &countingWriter{w: w}
	bw := bufio.NewWriterSize(cw, 1<<20)
	// Each place the mark was gets the same share of the size.
	share := (size - int64(len(text))) / int64(len(segments)-1)
	for i, seg := range segments {
		if i > 0 {
			line := segments[i-1][bytes.LastIndexByte(segments[i-1], '\n')+1:]
			writeBigText(bw, style, share, len(line)-len(bytes.TrimLeft(line, " ")))
		}
		bw.Write(seg)
	}
	err = bw.Flush()
	return cw.n, err
}

// largeBody is the cassette LargeBodyCassette writes, with text as the
// large part of its answer.
func largeBody(style BodyStyle, text string) *cassettes.Cassette {
	body, contentType := `{"candidates":[{"content":{"role":"model","parts":[{"text":"`+text+`"}]},"finishReason":"STOP"}],`+
		`"usageMetadata":{"promptTokenCount":12,"candidatesTokenCount":9000000,"totalTokenCount":9000012},"modelVersion":"gemini-2.5-flash"}`, JSONContentType
	switch style {
	case ManyLines:
		body, contentType = "report\n"+text+"\nend\n", "text/plain"
	case DoubleQuoted:
		body, contentType = "report\t"+text+"\tend", "text/plain"
	}
	return &cassettes.Cassette{Name: "big", Trajectories: wire.StepOf, Exchanges: []*cassettes.Exchange{{
		Request: cassettes.Request{Method: "POST", Path: JSONPath, Header: http.Header{"Content-Type": {"application/json"}},
			Body: []byte(`{"contents":[{"role":"user","parts":[{"text":"a long answer, please"}]}]}`)},
		Response: cassettes.Response{Status: 200, Header: http.Header{"Content-Type": {contentType}}, Body: []byte(body)},
		Place:    &cassettes.Place{Session: 1, Invocation: 1, User: "a long answer, please", Agent: "root"},
	}}}
}

// writeBigText writes about n bytes of text in place of the mark, on a
// line indented by indent spaces.
func writeBigText(w *bufio.Writer, style BodyStyle, n int64, indent int) {
	switch style {
	case ManyLines:
		pad := strings.Repeat(" ", indent)
		for i := uint64(0); n > 0; i++ {
			line := prose(i, 16)
			if i > 0 {
				w.WriteString(pad)
			}
			w.WriteString(line)
			w.WriteString("\n")
			n -= int64(len(pad) + len(line) + 1)
		}
		w.WriteString(pad + "last line")
	case DoubleQuoted:
		chunk := strings.ReplaceAll(prose(0, 128), " ", `\t`)
		for ; n > 0; n -= int64(len(chunk) + 2) {
			w.WriteString(chunk)
			w.WriteString(`\t`)
		}
		w.WriteString("end")
	default:
		chunk := prose(0, 128)
		for ; n > 0; n -= int64(len(chunk) + 1) {
			w.WriteString(chunk)
			w.WriteString(" ")
		}
		w.WriteString("end")
	}
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// ManyStepsCassette writes to w a cassette of steps small model calls, ten
// to a session in invocations of four (a function call, then an answer,
// and so on), each session with its own user text, and returns the bytes
// written: about 700 bytes a step.
func ManyStepsCassette(w io.Writer, steps int) (int64, error) {
	const perSession = 10
	c := &cassettes.Cassette{Name: "many", Trajectories: wire.StepOf}
	for i := range perSession {
		c.Exchanges = append(c.Exchanges, smallStep(i))
	}
	text, err := cassettes.Marshal(c)
	if err != nil {
		return 0, err
	}
	head, session, ok := bytes.Cut(text, []byte("sessions:\n"))
	const first = "  - id: 1\n"
	if !ok || !bytes.HasPrefix(session, []byte(first)) {
		return 0, fmt.Errorf("workload: the marshalled cassette does not start its sessions with %q", first)
	}
	parts := bytes.Split(session[len(first):], []byte(smallUser))
	cw := &countingWriter{w: w}
	bw := bufio.NewWriterSize(cw, 1<<20)
	bw.Write(head)
	bw.WriteString("sessions:\n")
	for s := 1; (s-1)*perSession < steps; s++ {
		fmt.Fprintf(bw, "  - id: %d\n", s)
		user := fmt.Sprintf("%s%08d", smallUser[:len(smallUser)-8], s)
		for i, part := range parts {
			if i > 0 {
				bw.WriteString(user)
			}
			bw.Write(part)
		}
	}
	err = bw.Flush()
	return cw.n, err
}

// smallUser is the user text of a session, its last eight bytes the
// session's number.
const smallUser = "weather in Paris? 00000001"

// smallStep is step i of a session: a model call of about a hundred bytes
// each way (written compact, on one line), alternating a function call and
// a text answer.
func smallStep(i int) *cassettes.Exchange {
	req := `{"contents":[{"role":"user","parts":[{"text":"` + smallUser + `"}]}]}`
	resp := `{"candidates":[{"content":{"role":"model","parts":[{"text":"18 degrees, cloudy."}]},"finishReason":"STOP"}]}`
	if i%2 == 0 {
		resp = `{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"step":` + strconv.Itoa(i) + `}}}]}}]}`
	}
	return &cassettes.Exchange{
		Request: cassettes.Request{Method: "POST", Path: JSONPath, Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(req)},
		Response: cassettes.Response{Status: 200, Header: http.Header{"Content-Type": {JSONContentType}}, Body: []byte(resp),
			Latency: 412_000_000},
		Place: &cassettes.Place{Session: 1, Invocation: i/4 + 1, User: smallUser, Step: i % 4, Agent: "weather_agent"},
	}
}
