// A recorded answer's header block, worked out once and set as it is on
// every replay of the answer.

package proxy

import (
	"net/http"
	"strconv"

	"github.com/adkproxy/adkproxy/cassettes"
)

// answerHead is what serve sets in the response header for one recorded
// answer: the recorded fields, no Date, and the Content-Length of a whole
// body. Under load the same answer goes out thousands of times; working
// its fields out once spares each of them walking the recorded map and
// formatting the length. The value slices are shared by every response
// (as copyHeaders shares them): net/http only reads them.
type answerHead struct {
	fields []headerField
	// uploadURL: the answer carries an x-goog-upload-url, pointed at
	// this proxy as each request reached it (pointHere).
	uploadURL bool
}

type headerField struct {
	name   string
	values []string
}

// newAnswerHead works out resp's header block, in copyHeaders' order: a
// later field of the same name wins, as a later assignment would.
func newAnswerHead(resp *cassettes.Response) *answerHead {
	a := &answerHead{fields: make([]headerField, 0, len(resp.Header)+2)}
	for name, values := range resp.Header {
		a.fields = append(a.fields, headerField{name, values})
	}
	// A nil Date stops net/http from adding the current time, which would
	// make every replay differ from the recording run.
	a.fields = append(a.fields, headerField{"Date", nil})
	if !resp.Streamed() && resp.End != cassettes.EndReset {
		a.fields = append(a.fields, headerField{"Content-Length", []string{strconv.Itoa(len(resp.Body))}})
	}
	a.uploadURL = resp.Header.Get(headerUploadURL) != ""
	return a
}

// set writes the block into h, the response's header, for request r.
func (a *answerHead) set(h http.Header, r *http.Request) {
	for _, f := range a.fields {
		h[f.name] = f.values
	}
	if a.uploadURL {
		pointHere(h, r)
	}
}

// answerHead is e's header block, worked out on its first replay rather
// than for every recording when a cassette is read (most are never
// served, and reading must stay quick).
func (e *entry) answerHead() *answerHead {
	if a := e.head.Load(); a != nil {
		return a
	}
	a := newAnswerHead(&e.x.Response)
	e.head.Store(a)
	return a
}
