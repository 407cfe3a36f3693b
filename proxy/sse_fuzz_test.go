package proxy

import (
	"bytes"
	"io"
	"testing"
)

// chunkedReader hands out data in pieces of the given sizes, as a network
// connection would, to exercise event boundaries that fall between reads.
type chunkedReader struct {
	data  []byte
	sizes []byte
}

func (c *chunkedReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := 1
	if len(c.sizes) > 0 {
		n = int(c.sizes[0])%17 + 1
		c.sizes = c.sizes[1:]
	}
	n = min(n, len(c.data), len(p))
	copy(p, c.data[:n])
	c.data = c.data[n:]
	return n, nil
}

// FuzzSSESplitter: however a body arrives, the events the reader returns
// join back to the body exactly, each complete event ends with a blank
// line, and the split is the same as splitEvents gives for the whole body.
func FuzzSSESplitter(f *testing.F) {
	f.Add([]byte("data: {\"a\":1}\r\n\r\ndata: {\"b\":2}\r\n\r\n"), []byte{1, 2, 3})
	f.Add([]byte("data: x\n\ndata: y\n\n"), []byte{5})
	f.Add([]byte("data: x\r\r\ndata: y\r\n"), []byte{0, 0, 0})
	f.Add([]byte("data: {\"a\":1}\r\n\r\n{\n  \"error\": {\"code\": 429}\n}\n"), []byte{16})
	f.Add([]byte("\r\n\r\n\n\n\r\r"), []byte{})
	f.Fuzz(func(t *testing.T, body, sizes []byte) {
		r := newEventReader(&chunkedReader{data: body, sizes: sizes})
		var got [][]byte
		for {
			ev, err := r.Next()
			if len(ev) > 0 {
				got = append(got, ev)
			}
			if err != nil {
				if err != io.EOF {
					t.Fatalf("unexpected error %v", err)
				}
				break
			}
			if len(ev) == 0 {
				t.Fatal("Next returned an empty event without an error")
			}
		}
		if joined := bytes.Join(got, nil); !bytes.Equal(joined, body) {
			t.Fatalf("events join to %q, body was %q", joined, body)
		}
		whole := splitEvents(body)
		if len(whole) != len(got) {
			t.Fatalf("streamed split %q differs from whole split %q", got, whole)
		}
		for i := range whole {
			if !bytes.Equal(whole[i], got[i]) {
				t.Fatalf("event %d: streamed %q, whole %q", i, got[i], whole[i])
			}
			if i < len(whole)-1 && eventEnd(whole[i], 0, true) != len(whole[i]) {
				t.Fatalf("event %d %q does not end with a blank line", i, whole[i])
			}
		}
	})
}
