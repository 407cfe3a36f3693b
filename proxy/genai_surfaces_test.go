package proxy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"cloud.google.com/go/auth"
	"google.golang.org/genai"

	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// TestGenaiClientSurfacesRecordThenReplay drives the Go client through
// caches (create, get, generateContent using the cache), a file upload, a
// batch polled to completion, and a Vertex cache with a generateContent,
// recorded then replayed with the upstream stopped.
func TestGenaiClientSurfacesRecordThenReplay(t *testing.T) {
	f := startFakeAPI(t, fakegemini.ResourceOptions{BatchPolls: 2})
	_, out := recordThenReplay(t, f, func(base string) string { return genaiSurfaces(t, base) })
	if !bytes.Contains([]byte(out), []byte(`"JOB_STATE_SUCCEEDED"`)) {
		t.Errorf("the batch did not finish:\n%s", out)
	}
}

func genaiSurfaces(t *testing.T, base string) string {
	t.Helper()
	ctx := context.Background()
	client, err := genai.NewClient(ctx, &genai.ClientConfig{
		APIKey: testutil.SecretAPIKey, Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: base},
	})
	if err != nil {
		t.Fatal(err)
	}
	var out []any
	keep := func(what string, v any, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		out = append(out, what, v)
	}
	const model = "gemini-2.5-flash"
	cache, err := client.Caches.Create(ctx, model, &genai.CreateCachedContentConfig{
		Contents: genai.Text("A very long manual about foxes."), TTL: 600e9,
	})
	keep("cache-create", cache, err)
	got, err := client.Caches.Get(ctx, cache.Name, nil)
	keep("cache-get", got, err)
	resp, err := client.Models.GenerateContent(ctx, model, genai.Text("Summarise the manual."), &genai.GenerateContentConfig{CachedContent: cache.Name})
	keep("generate-with-cache", resp.Text(), err)

	file, err := client.Files.Upload(ctx, bytes.NewReader(bytes.Repeat([]byte("go upload "), 10_000)), &genai.UploadFileConfig{MIMEType: "text/plain", DisplayName: "go.txt"})
	keep("file-upload", file, err)

	job, err := client.Batches.Create(ctx, model, &genai.BatchJobSource{InlinedRequests: []*genai.InlinedRequest{
		{Contents: genai.Text("first")}, {Contents: genai.Text("second")},
	}}, &genai.CreateBatchJobConfig{DisplayName: "go-batch"})
	keep("batch-create", job, err)
	for polls := 0; job.State != genai.JobStateSucceeded; polls++ {
		if polls > 10 {
			t.Fatalf("the batch never finished: %+v", job)
		}
		job, err = client.Batches.Get(ctx, job.Name, nil)
		keep("batch-get", job.State, err)
	}
	keep("batch-result", job.Dest, nil)

	vertex, err := genai.NewClient(ctx, &genai.ClientConfig{
		Backend: genai.BackendVertexAI, Project: "test-project", Location: "us-central1",
		Credentials: auth.NewCredentials(&auth.CredentialsOptions{TokenProvider: staticToken(testutil.SecretBearer)}),
		HTTPOptions: genai.HTTPOptions{BaseURL: base},
	})
	if err != nil {
		t.Fatal(err)
	}
	vcache, err := vertex.Caches.Create(ctx, model, &genai.CreateCachedContentConfig{Contents: genai.Text("Vertex manual.")})
	keep("vertex-cache-create", vcache, err)
	vresp, err := vertex.Models.GenerateContent(ctx, model, genai.Text("Hello from Vertex"), &genai.GenerateContentConfig{CachedContent: vcache.Name})
	keep("vertex-generate-with-cache", vresp.Text(), err)

	b, _ := json.MarshalIndent(out, "", " ")
	return string(b)
}
