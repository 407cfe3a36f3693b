package proxy_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/proxy"
)

// restClient is a client that reads names from answers, as SDKs do, and
// logs every status and body it sees.
type restClient struct {
	t    *testing.T
	base string
	log  strings.Builder
}

func (c *restClient) call(method, path, body string) map[string]any {
	c.t.Helper()
	req, err := http.NewRequest(method, c.base+path, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("X-Goog-Api-Key", testutil.SecretAPIKey)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	fmt.Fprintf(&c.log, "%s %s -> %d %s\n", method, path, resp.StatusCode, data)
	if resp.StatusCode != http.StatusOK {
		c.t.Errorf("%s %s: %d %s", method, path, resp.StatusCode, data)
	}
	var out map[string]any
	json.Unmarshal(data, &out)
	return out
}

func str(v any) string { s, _ := v.(string); return s }

// restScenario uses every REST surface beside generateContent, each later
// call naming what an earlier answer named.
func restScenario(t *testing.T, base string) string {
	c := &restClient{t: t, base: base}
	c.call("GET", "/v1beta/models", "")
	c.call("GET", "/v1beta/models/gemini-2.5-flash", "")

	cache := str(c.call("POST", "/v1beta/cachedContents", `{"model":"models/gemini-2.5-flash","contents":[{"role":"user","parts":[{"text":"A long manual."}]}],"ttl":"600s"}`)["name"])
	c.call("GET", "/v1beta/"+cache, "")
	c.call("GET", "/v1beta/cachedContents", "")
	c.call("PATCH", "/v1beta/"+cache+"?updateMask=ttl", `{"ttl":"1200s"}`)
	c.call("POST", "/v1beta/models/gemini-2.5-flash:generateContent", `{"cachedContent":"`+cache+`","contents":[{"role":"user","parts":[{"text":"Summarise it."}]}]}`)

	file := uploadFileThrough(t, base)
	c.call("GET", "/v1beta/"+file, "")
	c.call("GET", "/v1beta/files", "")

	inline := str(c.call("POST", "/v1beta/models/gemini-2.5-flash:batchGenerateContent", `{"batch":{"displayName":"inline","inputConfig":{"requests":{"requests":[{"request":{"contents":[{"parts":[{"text":"one"}]}]}},{"request":{"contents":[{"parts":[{"text":"two"}]}]}}]}}}}`)["name"])
	for polls := 0; ; polls++ {
		if polls > 10 {
			t.Fatal("the batch never finished")
		}
		if done, _ := c.call("GET", "/v1beta/"+inline, "")["done"].(bool); done {
			break
		}
	}
	fromFile := str(c.call("POST", "/v1beta/models/gemini-2.5-flash:batchGenerateContent", `{"batch":{"displayName":"file","inputConfig":{"fileName":"`+file+`"}}}`)["name"])
	c.call("POST", "/v1beta/"+fromFile+":cancel", "")
	c.call("GET", "/v1beta/"+fromFile, "")
	c.call("GET", "/v1beta/batches", "")

	first := str(c.call("POST", "/v1beta/interactions", `{"model":"gemini-2.5-flash","input":"Hello"}`)["id"])
	second := str(c.call("POST", "/v1beta/interactions", `{"model":"gemini-2.5-flash","input":"And again","previous_interaction_id":"`+first+`"}`)["id"])
	c.call("GET", "/v1beta/interactions/"+second, "")

	c.call("DELETE", "/v1beta/"+cache, "")
	c.call("DELETE", "/v1beta/"+file, "")
	return c.log.String()
}

// uploadFileThrough uploads a small file the verbatim-URL way and returns
// its name.
func uploadFileThrough(t *testing.T, base string) string {
	out := pythonStyleUpload(t, base, []byte(`{"request": {"contents": [{"parts": [{"text": "from a file"}]}]}}`+"\n"), 1<<20)
	i := strings.Index(out, `"name": "files/`)
	if i < 0 {
		t.Fatalf("no file name in the upload's answer:\n%s", out)
	}
	name, _, _ := strings.Cut(out[i+len(`"name": "`):], `"`)
	return name
}

// TestRESTSurfacesRecordThenReplay: caches, files, batches polled to
// completion, interactions chains and models record and replay with the
// upstream stopped, in the same number of polls.
func TestRESTSurfacesRecordThenReplay(t *testing.T) {
	f := startFakeAPI(t, fakegemini.ResourceOptions{BatchPolls: 3})
	dir, out := recordThenReplay(t, f, func(base string) string { return restScenario(t, base) })
	c, err := cassettes.Load(filepath.Join(dir, "default.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var placed []string
	for _, x := range c.Exchanges {
		if strings.HasSuffix(x.Request.Path, "/interactions") && x.Place != nil {
			placed = append(placed, fmt.Sprintf("%d/%d/%d %s", x.Place.Session, x.Place.Invocation, x.Place.Step, x.Place.User))
		}
	}
	if want := []string{"2/1/0 Hello", "2/2/0 And again"}; strings.Join(placed, ", ") != strings.Join(want, ", ") {
		t.Errorf("the interaction chain is placed at %v, want %v (one session, an invocation per turn)", placed, want)
	}
	if n := strings.Count(out, "BATCH_STATE_RUNNING"); n != 3 {
		t.Errorf("the batch was seen running %d times, want 3:\n%s", n, out)
	}
	if !strings.Contains(out, "Turn 2: you said And again") {
		t.Errorf("the interaction chain did not reach its second turn:\n%s", out)
	}
}

// TestNamesMatchByPlaceInNewEpisodes: with new-episodes, a step whose
// request changed is recorded again and the server names its cache anew;
// the unchanged generateContent that uses "the cache this run created"
// still replays from the recording, although the name it echoes is the
// new one.
func TestNamesMatchByPlaceInNewEpisodes(t *testing.T) {
	dir := testutil.OutDir(t)
	scenario := func(base, ttl string) string {
		c := &restClient{t: t, base: base}
		cache := str(c.call("POST", "/v1beta/cachedContents", `{"model":"models/gemini-2.5-flash","contents":[{"parts":[{"text":"manual"}]}],"ttl":"`+ttl+`"}`)["name"])
		c.call("POST", "/v1beta/models/gemini-2.5-flash:generateContent", `{"cachedContent":"`+cache+`","contents":[{"role":"user","parts":[{"text":"Summarise it."}]}]}`)
		return c.log.String()
	}
	first := startFakeAPI(t, fakegemini.ResourceOptions{NameSeed: "a"})
	rec := startProxy(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: mustURL(t, first.api.URL)})
	scenario(rec.URL, "600s")
	rec.stop(t)

	second := startFakeAPI(t, fakegemini.ResourceOptions{NameSeed: "b"})
	again := startProxy(t, proxy.Config{Mode: proxy.ModeRecordNewEpisodes, Dir: dir, Upstream: mustURL(t, second.api.URL)})
	out := scenario(again.URL, "900s")
	again.stop(t)
	if !strings.Contains(out, "cachedContents/cb") {
		t.Fatalf("the changed create was not answered by the second upstream:\n%s", out)
	}
	if got := second.Requests(); len(got) != 1 {
		var paths []string
		for _, r := range got {
			paths = append(paths, r.Method+" "+r.Path)
		}
		t.Errorf("the second upstream got %v; want only the changed create (the generateContent replays by the cache's place)", paths)
	}
}
