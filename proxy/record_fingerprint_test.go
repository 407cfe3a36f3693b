package proxy_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
	"github.com/adkproxy/adkproxy/proxy"
)

// A call kept under new-episodes is indexed by the fingerprint the
// forward's read of its body gave: with repeats allowed, the same call sent
// again with other spacing and key order is answered from it, and so is a
// call whose kept body is not what was read (a server-made name numbered).
func TestKeptCallIsFoundByItsFingerprint(t *testing.T) {
	up := &fakegemini.Handler{}
	hs := httptest.NewServer(up)
	defer hs.Close()
	rec := startProxy(t, proxy.Config{Mode: proxy.ModeRecordNewEpisodes, Dir: t.TempDir(), AllowRepeats: true,
		Upstream: mustURL(t, hs.URL)})
	const path = "/v1beta/models/gemini-2.5-flash:generateContent"
	sendTo := func(path, body string) string {
		t.Helper()
		resp := post(t, rec.URL, path, nil, body)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: status %d: %s", body, resp.StatusCode, b)
		}
		return string(b)
	}
	send := func(body string) string { t.Helper(); return sendTo(path, body) }
	first := send(`{"contents":[{"role":"user","parts":[{"text":"hello"}]}],"generationConfig":{"temperature":0.5}}`)
	again := send(` { "generationConfig" : { "temperature" : 5e-1 }, "contents" : [ { "parts" : [ { "text" : "hello" } ], "role" : "user" } ] } `)
	if n := len(up.Requests()); n != 1 || again != first {
		t.Fatalf("the same call sent again went upstream (%d calls) or got another answer", n)
	}
	// A call naming a cache the run was given is kept with the name
	// numbered, so it is not the bytes that were read: its fingerprint is
	// of the kept form, which the same call sent again finds.
	var cache struct{ Name string }
	if err := json.Unmarshal([]byte(sendTo("/v1beta/cachedContents", `{"model":"models/gemini-2.5-flash","contents":[{"role":"user","parts":[{"text":"a long document"}]}]}`)), &cache); err != nil || cache.Name == "" {
		t.Fatalf("cache: %q, %v", cache.Name, err)
	}
	withCache := `{"cachedContent":"` + cache.Name + `","contents":[{"role":"user","parts":[{"text":"summarise it"}]}]}`
	first = send(withCache)
	if again := send(strings.ReplaceAll(withCache, ",", " , ")); again != first || len(up.Requests()) != 3 {
		t.Fatalf("the call naming the cache, sent again, went upstream (%d calls) or got another answer", len(up.Requests()))
	}
	rec.stop(t)
}
