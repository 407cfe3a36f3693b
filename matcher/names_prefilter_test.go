package matcher

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"testing"
)

var wordsAndSlash = func() (out [][]byte) {
	for _, w := range nameWords {
		out = append(out, append(append([]byte{}, w...), '/'))
	}
	return out
}()

// mayHoldNameByWords is the prefilter's definition: a body holds a
// collection's word followed by a slash.
func mayHoldNameByWords(b []byte) bool {
	for _, w := range wordsAndSlash {
		if bytes.Contains(b, w) {
			return true
		}
	}
	return false
}

func FuzzMayHoldName(f *testing.F) {
	for _, s := range []string{"", "/", "files/", "files", "/files/x", "xfiles/1", "cachedContents/abc", "batches", "operations//", "interactions/"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := mayHoldName(b), mayHoldNameByWords(b); got != want {
			t.Fatalf("mayHoldName(%q) = %v, by the words %v", b, got, want)
		}
	})
}

// Every word, at the start, in the middle and at the end of a body with
// other slashes around it, is found; the word without its slash is not.
func TestMayHoldNameEveryWordEverywhere(t *testing.T) {
	for _, w := range nameWords {
		for _, b := range []string{string(w) + "/x", "a/b " + string(w) + "/x /", "//" + string(w) + "/"} {
			if !mayHoldName([]byte(b)) {
				t.Errorf("mayHoldName(%q) = false", b)
			}
		}
		for _, b := range []string{string(w), "a/b " + string(w) + " /x", string(w[:len(w)-1]) + "/"} {
			if mayHoldName([]byte(b)) {
				t.Errorf("mayHoldName(%q) = true", b)
			}
		}
	}
}

// A 2 KB generateContent answer with a thought signature (base64, so
// slashes) and no name, the common case, read by the prefilter and by a
// search per word.
func BenchmarkMayHoldName(b *testing.B) {
	sig := make([]byte, 600)
	r := rand.NewChaCha8([32]byte{1})
	r.Read(sig)
	body := []byte(fmt.Sprintf(`{"candidates":[{"content":{"parts":[{"text":%q,"thoughtSignature":%q}],"role":"model"},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":812,"candidatesTokenCount":96,"totalTokenCount":908},"modelVersion":"gemini-2.5-flash","responseId":"x"}`,
		bytes.Repeat([]byte("The forecast for Paris is sunny with a high of 21 degrees. "), 18), base64.StdEncoding.EncodeToString(sig)))
	for _, c := range []struct {
		name string
		f    func([]byte) bool
	}{{"slashes", mayHoldName}, {"words", mayHoldNameByWords}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				if c.f(body) {
					b.Fatal("a name in a body without one")
				}
			}
		})
	}
}
