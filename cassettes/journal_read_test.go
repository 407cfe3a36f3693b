// Reading a journal's records, whatever bytes follow its header.

package cassettes

import (
	"bytes"
	"fmt"
	"hash/crc32"
	"testing"
)

// appendRecord frames payload as a journal record: "<length> <crc32>\n",
// the payload, "\n" (internal/base/journalfile).
func appendRecord(b, payload []byte) []byte {
	return append(fmt.Appendf(b, "%d %08x\n", len(payload), crc32.ChecksumIEEE(payload)), append(payload, '\n')...)
}

// FuzzJournalRecords reads any bytes after a journal's header without
// panicking. What it reads comes from the whole records at the start:
// reading only those gives the same exchanges and nothing torn, and every
// connection read has its frames list.
func FuzzJournalRecords(f *testing.F) {
	var seed []byte
	add := func(payload string) {
		seed = appendRecord(seed, []byte(payload))
	}
	add(`{"LiveID":"a","Start":{"Request":{"Method":"GET","Path":"/ws"},"Response":{"Status":101}},"Frames":[{"FromClient":true,"Kind":"text","Data":"e30=","At":1}]}`)
	add(`{"LiveID":"a","From":1,"Frames":[{"FromClient":false,"Kind":"binary","Data":"e30=","At":2}]}`)
	add(`{"Request":{"Method":"POST","Path":"/v1beta/models/m:generateContent"},"Response":{"Status":200}}`)
	add(`{"LiveID":"b","Start":{"Request":{"Method":"GET","Path":"/ws"},"Response":{"Status":101}}}`)
	add(`{"LiveID":"a","Done":true,"Kept":{"Request":{"Method":"GET","Path":"/ws"},"Response":{"Status":101},"Live":{"Frames":[]}}}`)
	add(`{"LiveID":"b","From":3,"Frames":null}`)
	add(`{"LiveID":"a","Start":{"Live":null},"Frames":[]}`)
	f.Add(seed)
	f.Add(seed[:len(seed)/2])
	zeros := make([]byte, 64) // a prewritten tail, after whole records and after a cut one
	f.Add(append(append([]byte{}, seed...), zeros...))
	f.Add(append(append([]byte{}, seed[:len(seed)/2]...), zeros...))
	f.Add([]byte("12 00000000\n{\"LiveID\":1}\n"))
	f.Add([]byte(`{"LiveID":"a","Start":{},"Frames":[{}]}` + "\n" + `{"LiveID":"a","From":1,"Frames":[{"Data":"e30="}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkRecords(t, data)
		// The same bytes as the payloads of checksummed records, one a
		// line, so that the fuzzer reaches the records' decoding.
		var framed []byte
		for _, line := range bytes.Split(data, []byte("\n")) {
			framed = appendRecord(framed, line)
		}
		checkRecords(t, framed)
	})
}

func checkRecords(t *testing.T, data []byte) {
	{
		xs, torn := readRecords(data)
		if torn < 0 || torn > len(bytes.TrimRight(data, "\x00")) {
			t.Fatalf("torn %d of %d bytes", torn, len(data))
		}
		for _, x := range xs {
			if x == nil || x.Live != nil && x.Live.Frames == nil {
				t.Fatalf("read %+v", x)
			}
		}
		whole := len(bytes.TrimRight(data, "\x00")) - torn // the prewritten tail's zeros are not torn
		again, tornAgain := readRecords(data[:whole])
		if tornAgain != 0 || len(again) != len(xs) {
			t.Fatalf("the whole records alone read as %d exchanges (%d torn), with the rest %d", len(again), tornAgain, len(xs))
		}
	}
}
