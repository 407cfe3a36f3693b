package cassettes

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// bigBodyCassette writes a cassette whose one response body is about size
// bytes of JSON, pretty-printed by Save: many short lines, or, with
// oneLine, one answer text that is a single long line.
func bigBodyCassette(t testing.TB, size int, oneLine bool) string {
	t.Helper()
	text := strings.Repeat("word ", size/5)
	var body []byte
	if oneLine {
		body = []byte(`{"candidates":[{"content":{"role":"model","parts":[{"text":"` + text + `"}]}}]}`)
	} else {
		var b bytes.Buffer
		b.WriteString(`{"candidates":[`)
		for i := 0; b.Len() < size; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`{"content":{"role":"model","parts":[{"text":"` + text[:200] + `"}]}}`)
		}
		b.WriteString("]}")
		body = b.Bytes()
	}
	path := filepath.Join(t.TempDir(), "big.yaml")
	c := &Cassette{Name: "big", Exchanges: []*Exchange{{
		Request:  Request{Method: "POST", Path: "/v1beta/models/m:generateContent", Body: []byte(`{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`)},
		Response: Response{Status: 200, Body: body},
		Place:    &Place{Session: 1, Invocation: 1, User: "hi", Agent: "a"},
	}}}
	if err := Save(path, c, nil); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestLoadingALargeBodyTakesAboutItsSize is issue 39 item 5: loading a
// cassette with one large body, written as many lines or with one long
// line, allocates at most 3.5 times the file's size in all, of which about
// 2 at once (it was 8 to 14 times: a long line gathered by quarter growth,
// the block's lines copied into its value, the value compacted into a
// third copy), and reads the same body as the reference reader.
func TestLoadingALargeBodyTakesAboutItsSize(t *testing.T) {
	for _, oneLine := range []bool{false, true} {
		path := bigBodyCassette(t, 8<<20, oneLine)
		info, _ := os.Stat(path)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		c, err := Load(path)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		ratio := float64(after.TotalAlloc-before.TotalAlloc) / float64(info.Size())
		if ratio > 3.5 {
			t.Errorf("one line %v: loading %d bytes allocated %.1f times as much", oneLine, info.Size(), ratio)
		}
		data, _ := os.ReadFile(path)
		ref, err := Unmarshal(path, data)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(c.Exchanges[0].Response.Body, ref.Exchanges[0].Response.Body) {
			t.Errorf("one line %v: the body differs from the reference reader's", oneLine)
		}
		t.Logf("one line %v: %d bytes, %.2f times allocated", oneLine, info.Size(), ratio)
	}
}

// BenchmarkLoadLargeBody reports what loading a cassette with one large
// body allocates per byte of the file (alloc/file), at 1 MiB and 64 MiB.
func BenchmarkLoadLargeBody(b *testing.B) {
	for _, mib := range []int{1, 64} {
		path := bigBodyCassette(b, mib<<20, true)
		info, _ := os.Stat(path)
		b.Run("MiB="+itoa(mib), func(b *testing.B) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for b.Loop() {
				if _, err := Load(path); err != nil {
					b.Fatal(err)
				}
			}
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/float64(info.Size()), "alloc/file")
		})
	}
}

// TestLoadingABodyUnderAMebibyteTakesAboutItsSize is issue 39 item 5 at
// the small end: a body of 128 KiB to 1 MiB on one long line (a cassette of
// 256 KiB to 2 MiB, the text in the trajectory too) is made in the buffer
// it was read into and compacted there, and the buffer of a long line
// that reaches the last 4 MiB of the file takes them at once: loading
// allocates at most 1.6 times the file in all, 3 for a body of 128 KiB,
// where the splitter's 64 KiB read buffer counts (it was 4.1 to 4.6: the
// value copied out of that buffer, then compacted into a third, and 2.1
// with the buffer doubled up to the end of the file).
func TestLoadingABodyUnderAMebibyteTakesAboutItsSize(t *testing.T) {
	for _, size := range []int{128 << 10, 512 << 10, 1000 << 10} {
		path := bigBodyCassette(t, size, true)
		info, _ := os.Stat(path)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		c, err := Load(path)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		ratio := float64(after.TotalAlloc-before.TotalAlloc) / float64(info.Size())
		if limit := map[bool]float64{true: 3, false: 1.6}[size < 256<<10]; ratio > limit {
			t.Errorf("body of %d bytes: loading %d bytes allocated %.2f times as much", size, info.Size(), ratio)
		}
		data, _ := os.ReadFile(path)
		ref, err := Unmarshal(path, data)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(c.Exchanges[0].Response.Body, ref.Exchanges[0].Response.Body) {
			t.Errorf("body of %d bytes: the body differs from the reference reader's", size)
		}
		t.Logf("body of %d bytes: file %d bytes, %.2f times allocated", size, info.Size(), ratio)
	}
}
