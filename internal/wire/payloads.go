// The JSON documents of a response body, whole or streamed.

package wire

import (
	"bytes"

	"github.com/adkproxy/adkproxy/cassettes"
)

// Payloads returns the JSON documents of a response: its body, or the
// data of each SSE event (its data lines joined, as SSE joins them).
func Payloads(r *cassettes.Response) [][]byte {
	if !r.Streamed() {
		return [][]byte{r.Body}
	}
	var out [][]byte
	for _, e := range r.Events {
		if data := EventData(e.Data); len(data) > 0 {
			out = append(out, data)
		}
	}
	return out
}

// EventData is the data of one recorded SSE event: its data lines'
// payloads joined (one space after "data:" dropped), nil when it has none.
// An event of one data line (every Gemini event) gives a part of event
// itself, not a copy, capped so that appending to it copies: the recording
// tee reads each event this way.
func EventData(event []byte) []byte {
	var data []byte
	copied := false
	for rest := event; len(rest) > 0; {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte("\n"))
		p, ok := bytes.CutPrefix(bytes.TrimRight(line, "\r"), []byte("data:"))
		if !ok || len(p) == 0 {
			continue
		}
		p = bytes.TrimPrefix(p, []byte(" "))
		switch {
		case len(data) == 0:
			data = p[:len(p):len(p)]
		case len(p) > 0:
			if !copied {
				data, copied = append([]byte(nil), data...), true
			}
			data = append(data, p...)
		}
	}
	if len(data) == 0 {
		return nil
	}
	return data
}
