package proxy

import (
	"bytes"
	"testing"
)

// FuzzChunkAssembler cuts a file into chunks at fuzzed points, resends
// some and sends others at fuzzed offsets. Whatever arrives, the assembler
// never panics, never holds more than the limit, holds a prefix of the
// file while every chunk agreed with it, and holds the whole file once
// chunks that cover it in order came.
func FuzzChunkAssembler(f *testing.F) {
	f.Add([]byte("hello, upload"), []byte{3, 5, 0, 9}, []byte{0, 1, 0, 0})
	f.Add(bytes.Repeat([]byte{7}, 300), []byte{100, 100, 100}, []byte{0, 2, 1})
	f.Fuzz(func(t *testing.T, file, cuts, moves []byte) {
		a := &chunkAssembler{limit: int64(len(file))}
		offset := 0
		for i := 0; offset < len(file); i++ {
			n := len(file) - offset
			if i < len(cuts) && int(cuts[i]) > 0 && int(cuts[i]) < n {
				n = int(cuts[i])
			}
			start := offset
			if i < len(moves) {
				switch moves[i] % 4 {
				case 1: // a resend from earlier: overlaps what came
					start = max(0, offset-int(moves[i]))
				case 2: // past the end: a gap
					gap := len(a.data) + 1 + int(moves[i])
					if err := a.add(int64(gap), []byte{1}); err == nil {
						t.Fatalf("a chunk at %d after %d bytes was accepted", gap, len(a.data))
					}
				case 3: // right offset, changed bytes
					if n > 0 {
						chunk := bytes.Clone(file[offset : offset+n])
						chunk[0]++
						have := len(a.data)
						if err := a.add(int64(offset), chunk); err == nil && offset < have {
							t.Fatalf("chunk at %d with bytes that differ from the file's was accepted over agreeing bytes", offset)
						}
						a = &chunkAssembler{limit: int64(len(file)), data: bytes.Clone(file[:offset])}
					}
				}
			}
			end := min(start+n, len(file))
			if err := a.add(int64(start), file[start:end]); err != nil {
				t.Fatalf("chunk [%d,%d) of a %d-byte file refused after %d bytes: %v", start, end, len(file), len(a.data), err)
			}
			if len(a.data) > len(file) || !bytes.Equal(a.data, file[:len(a.data)]) {
				t.Fatalf("assembled %d bytes that are not the file's prefix", len(a.data))
			}
			offset = max(offset, end)
		}
		if !bytes.Equal(a.data, file) {
			t.Fatalf("assembled %d bytes, want the %d-byte file", len(a.data), len(file))
		}
		if err := a.add(int64(len(file)), []byte{1}); err == nil {
			t.Fatal("a byte past the limit was accepted")
		}
	})
}
