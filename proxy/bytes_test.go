package proxy_test

import (
	"encoding/base64"
	"net/http"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/proxy"
)

// bytesHistory is a thinking model's history: a signed function call, its
// response, and an image, with the signature and the image in enc.
func bytesHistory(enc *base64.Encoding, sig, image []byte) string {
	return `{"contents":[{"role":"user","parts":[{"text":"add 2 and 3, then look"},` +
		`{"inlineData":{"mimeType":"image/png","data":"` + enc.EncodeToString(image) + `"}}]},` +
		`{"role":"model","parts":[{"functionCall":{"name":"sum","args":{"a":2,"b":3}},"thoughtSignature":"` + enc.EncodeToString(sig) + `"}]},` +
		`{"role":"user","parts":[{"functionResponse":{"name":"sum","response":{"result":5}}}]}]}`
}

// TestByteFieldsReplayAcrossBase64Alphabets: a recording whose byte fields
// are standard base64 (Go's and JS's genai) is replayed to a client that
// sends them URL-safe and unpadded (Python's genai), and the reverse: the
// same bytes match, and the answer is the recorded one byte for byte.
// Other bytes are a mismatch naming the field.
func TestByteFieldsReplayAcrossBase64Alphabets(t *testing.T) {
	sig := []byte{0x12, 0xe2, 0x04, 0x0a, 0xdf, 0x04, 0x01, 0x0c, 0x39, 0xfb, 0xff, 0xbf, 0xfe} // "+", "/" and padding
	image := []byte("\x89PNG\r\n\x1a\n\xfb\xff\xfe")
	for _, c := range []struct {
		name          string
		recorded, got *base64.Encoding
	}{
		{"standard recorded, URL-safe sent", base64.StdEncoding, base64.RawURLEncoding},
		{"URL-safe recorded, standard sent", base64.URLEncoding, base64.StdEncoding},
	} {
		t.Run(c.name, func(t *testing.T) {
			recorded, sent := bytesHistory(c.recorded, sig, image), bytesHistory(c.got, sig, image)
			if recorded == sent {
				t.Fatal("the two spellings are the same text: the test proves nothing")
			}
			up, _ := countingUpstream()
			defer up.Close()
			dir := testOutDirWith(t, up.URL, recorded)
			rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir.dir})
			resp := post(t, rep.URL, generatePath, nil, sent)
			if got := body(t, resp); resp.StatusCode != http.StatusOK || got != dir.answer {
				t.Fatalf("replay answered %d %q, want 200 %q", resp.StatusCode, got, dir.answer)
			}

			rep = startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir.dir})
			other := append([]byte{0xff}, sig[1:]...)
			resp = post(t, rep.URL, generatePath, nil, bytesHistory(c.got, other, image))
			msg := body(t, resp)
			if resp.StatusCode != http.StatusBadRequest || !strings.Contains(msg, "contents[1].parts[sum].thoughtSignature: recorded \\\""+c.recorded.EncodeToString(sig)) ||
				strings.Contains(msg, "inlineData") {
				t.Fatalf("other bytes: %d %s", resp.StatusCode, msg)
			}
		})
	}
}

type recordedDir struct{ dir, answer string }

// testOutDirWith records one request and returns the cassettes' folder
// and the answer the client got.
func testOutDirWith(t *testing.T, upstream, request string) recordedDir {
	t.Helper()
	dir := testutil.OutDir(t)
	rec := startProxy(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: mustURL(t, upstream)})
	answer := body(t, post(t, rec.URL, generatePath, nil, request))
	rec.stop(t)
	return recordedDir{dir: dir, answer: answer}
}
