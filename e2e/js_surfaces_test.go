package e2e_test

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// jsSurfaces is the JS client's files, caches and batches scenario.
const jsSurfaces = "e2e/js/surfaces.mjs"

// TestJSGenaiSurfacesRecordThenReplay: @google/genai's files.upload (two
// chunks, to an upload host other than the API's), caches.create with a
// generateContent using the cache, and batches.create polled with
// batches.get, and an interactions.create chain record through adkproxy and replay with the upstream down
// and no key: same output, the file in a side file, no key on disk.
func TestJSGenaiSurfacesRecordThenReplay(t *testing.T) {
	root := testutil.RepoRoot()
	node := requireJSClient(t, root)
	bin := testutil.BuildAdkproxy(t)
	dir := testutil.OutDir(t)

	upstream := &fakegemini.Handler{}
	api := httptest.NewUnstartedServer(upstream)
	defer api.Close()
	uploads := httptest.NewUnstartedServer(upstream)
	defer uploads.Close()
	// Set before either server can serve a request that reads it.
	upstream.ResourceOptions = fakegemini.ResourceOptions{UploadURL: "http://" + uploads.Listener.Addr().String(), BatchPolls: 2}
	uploads.Start()
	api.Start()

	rec := runAdkproxy(t, root, bin, childEnv("GOOGLE_API_KEY="+testutil.SecretAPIKey),
		"record", "--cassettes", dir, "--upstream", api.URL, "--", node, jsSurfaces)
	if rec.code != 0 {
		t.Fatalf("adkproxy record exited %d, want 0; stderr:\n%s", rec.code, rec.stderr)
	}
	recorded := parseScenario(t, "record", rec.stdout)
	var batch struct{ States []string }
	json.Unmarshal(recorded["batch"], &batch)
	if len(batch.States) != 4 || batch.States[3] != "JOB_STATE_SUCCEEDED" {
		t.Errorf("batch states %v: want pending, running twice, succeeded", batch.States)
	}
	if n := testutil.CountInDir(t, dir, testutil.SecretAPIKey); n != 0 || strings.Contains(rec.stdout+rec.stderr, testutil.SecretAPIKey) {
		t.Errorf("the API key appears %d time(s) in the cassettes (or in adkproxy's output)", n)
	}
	sides, _ := filepath.Glob(filepath.Join(dir, "*.files", "sha256-*"))
	if len(sides) != 1 {
		t.Fatalf("side files %v: want the uploaded file once", sides)
	}
	if info, err := os.Stat(sides[0]); err != nil || info.Size() != 8*1024*1024+4096 {
		t.Errorf("side file %s: %v; want the whole 8 MiB + 4 KiB file", sides[0], err)
	}

	api.Close()
	uploads.Close()
	before := len(upstream.Requests())
	replayAsRecorded(t, root, bin, childEnv(), dir, recorded, node, jsSurfaces)
	if after := len(upstream.Requests()); after != before {
		t.Errorf("replay reached the upstream %d times", after-before)
	}
	if !strings.Contains(string(recorded["interactions"]), "Turn 2: you said And again") {
		t.Errorf("the interaction chain did not reach its second turn: %s", recorded["interactions"])
	}
	var up struct{ Name string }
	json.Unmarshal(recorded["upload"], &up)
	if !bytes.HasPrefix([]byte(up.Name), []byte("files/")) {
		t.Errorf("upload result %s has no file name", recorded["upload"])
	}
}
