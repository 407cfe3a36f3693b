package proxy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"google.golang.org/genai"

	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/proxy"
)

// TestUploadThroughTheForwardProxy: a client that reaches the API through
// HTTPS_PROXY (interception) uploads a file; the upload URL it is handed
// stays on the API's host over https, so its chunks come back through the
// proxy, are recorded, and replay with the upstream gone.
func TestUploadThroughTheForwardProxy(t *testing.T) {
	dir := testutil.OutDir(t)
	local, public := newCA(t), newCA(t)
	gemini := &fakegemini.Handler{ResourceOptions: fakegemini.ResourceOptions{UploadURL: "https://generativelanguage.googleapis.com"}}
	up := testutil.StartCounting(t, gemini, public.Leaf)
	routes := []proxy.ConnectTo{{From: "generativelanguage.googleapis.com:443", To: up.Addr()}}
	upload := func(url string) string {
		client, err := genai.NewClient(context.Background(), &genai.ClientConfig{
			APIKey: testutil.SecretAPIKey, Backend: genai.BackendGeminiAPI, HTTPClient: proxiedClient(url, poolOf(local)),
		})
		if err != nil {
			t.Fatal(err)
		}
		f, err := client.Files.Upload(context.Background(), bytes.NewReader(bytes.Repeat([]byte("intercepted "), 8_000)), &genai.UploadFileConfig{MIMEType: "text/plain"})
		if err != nil {
			t.Fatalf("upload: %v", err)
		}
		b, _ := json.Marshal(f)
		return string(b)
	}
	rec, recHTTP := serveForward(t, proxy.Config{
		Mode: proxy.ModeRecord, Dir: dir, ConnectTo: routes, UpstreamRoots: poolOf(public),
		Forward: &proxy.ForwardProxy{Leaf: local.Leaf},
	})
	recorded := upload(recHTTP.URL)
	recHTTP.Close()
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	up.Close()
	if n := len(gemini.Requests()); n != 2 || rec.Stats().Recorded != 2 {
		t.Fatalf("upstream saw %d requests, %d recorded; want the start and one chunk", n, rec.Stats().Recorded)
	}
	if n := testutil.CountInDir(t, dir, testutil.SecretAPIKey) + testutil.CountInDir(t, dir, "fake-upload-key"); n != 0 {
		t.Errorf("a key appears %d times in the cassettes", n)
	}
	rep, repHTTP := serveForward(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir, Forward: &proxy.ForwardProxy{Leaf: local.Leaf}})
	if got := upload(repHTTP.URL); got != recorded {
		t.Errorf("replayed upload differs:\nrecorded %s\nreplayed %s", recorded, got)
	}
	if st := rep.Stats(); st.Unmatched+st.Mismatched != 0 || st.Replayed != 2 {
		t.Errorf("replay stats %+v; misses %+v", st, rep.Misses())
	}
}
