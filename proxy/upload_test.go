package proxy_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/base/sidefile"
	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/proxy"
)

// uploadFile is 130,000 bytes: three chunks of 50,000 (the last short),
// and over sidefile.Threshold, so it goes to a side file.
func uploadFile() []byte {
	b := make([]byte, 130_000)
	for i := range b {
		b[i] = byte(i*7 + i/251)
	}
	return b
}

// pythonStyleUpload uploads file the way python-genai does: chunks go to
// exactly the URL the start answer's x-goog-upload-url names, looping
// while x-goog-upload-status is active. It returns what the client saw.
func pythonStyleUpload(t *testing.T, base string, file []byte, chunk int) string {
	t.Helper()
	var out strings.Builder
	start, err := http.NewRequest(http.MethodPost, base+"/upload/v1beta/files", strings.NewReader(`{"file": {"displayName": "notes.bin"}}`))
	if err != nil {
		t.Fatal(err)
	}
	start.Header.Set("X-Goog-Api-Key", testutil.SecretAPIKey)
	start.Header.Set("X-Goog-Upload-Protocol", "resumable")
	start.Header.Set("X-Goog-Upload-Command", "start")
	start.Header.Set("X-Goog-Upload-Header-Content-Length", strconv.Itoa(len(file)))
	start.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(start)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	uploadURL := resp.Header.Get("X-Goog-Upload-Url")
	u, err := url.Parse(uploadURL)
	if err != nil || "http://"+u.Host != base || u.Query().Has("key") {
		t.Fatalf("x-goog-upload-url %q: want it on the proxy %s, without the key", uploadURL, base)
	}
	fmt.Fprintf(&out, "start %d %s path=%s\n", resp.StatusCode, resp.Header.Get("X-Goog-Upload-Status"), u.Path)
	status := "active"
	for offset := 0; status == "active"; offset += chunk {
		end := min(offset+chunk, len(file))
		command := "upload"
		if end == len(file) {
			command = "upload, finalize"
		}
		req, _ := http.NewRequest(http.MethodPost, uploadURL, bytes.NewReader(file[offset:end]))
		req.Header.Set("X-Goog-Api-Key", testutil.SecretAPIKey)
		req.Header.Set("X-Goog-Upload-Command", command)
		req.Header.Set("X-Goog-Upload-Offset", strconv.Itoa(offset))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		status = resp.Header.Get("X-Goog-Upload-Status")
		fmt.Fprintf(&out, "chunk %d %d %s received=%s %s\n", offset, resp.StatusCode, status, resp.Header.Get("X-Goog-Upload-Size-Received"), body)
		if resp.StatusCode != http.StatusOK {
			break
		}
	}
	return out.String()
}

// TestUploadPythonStyleRecordThenReplay: a client that posts chunks to the
// upload URL verbatim (python-genai) records through adkproxy although the
// API names another host for them, the file is stored once in a side file,
// and replay serves the same protocol with the upstream stopped.
func TestUploadPythonStyleRecordThenReplay(t *testing.T) {
	f := startFakeAPI(t, fakegemini.ResourceOptions{})
	file := uploadFile()
	dir, out := recordThenReplay(t, f, func(base string) string { return pythonStyleUpload(t, base, file, 50_000) })
	if !strings.Contains(out, "chunk 100000 200 final") || strings.Count(out, "200 active") != 3 {
		t.Fatalf("the upload did not go start, active, active, final:\n%s", out)
	}
	var onUploadHost int
	for _, r := range f.Requests() {
		if r.Header.Get("X-Goog-Upload-Offset") != "" {
			onUploadHost++
		}
	}
	if onUploadHost != 3 {
		t.Errorf("the upstream got %d chunks, want 3", onUploadHost)
	}
	side := filepath.Join(dir, "default.files", sidefile.Name(file))
	if got, err := os.ReadFile(side); err != nil || !bytes.Equal(got, file) {
		t.Fatalf("side file %s: %v (%d bytes); want the whole file", side, err, len(got))
	}
	yaml, _ := os.ReadFile(filepath.Join(dir, "default.yaml"))
	if n := bytes.Count(yaml, []byte("body_encoding: file")); n != 1 {
		t.Errorf("the cassette names %d side files, want the file once:\n%s", n, yaml)
	}
}

// TestUploadReplayRefusesAnotherFile: replaying an upload of different
// bytes is a mismatch, found when the upload is finalized.
func TestUploadReplayRefusesAnotherFile(t *testing.T) {
	f := startFakeAPI(t, fakegemini.ResourceOptions{})
	dir := testutil.OutDir(t)
	rec := startProxy(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: mustURL(t, f.api.URL)})
	file := uploadFile()
	pythonStyleUpload(t, rec.URL, file, 50_000)
	rec.stop(t)
	f.stop()

	rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir})
	file[120_000] ^= 1
	out := pythonStyleUpload(t, rep.URL, file, 50_000)
	if !strings.Contains(out, "chunk 100000 400") {
		t.Fatalf("a changed file was accepted:\n%s", out)
	}
	if !strings.Contains(out, "the uploaded file differs from the recorded one: recorded 130000 bytes") || !strings.Contains(out, "first difference at byte 120000") {
		t.Errorf("the refusal does not say where the file differs:\n%s", out)
	}
	if st := rep.Stats(); st.Mismatched+st.Unmatched != 1 {
		t.Errorf("stats %+v: want the finalizing chunk reported", st)
	}
}

// TestUploadReplayRefusesAGap: a chunk whose offset leaves a gap is
// refused with a message saying so.
func TestUploadReplayRefusesAGap(t *testing.T) {
	f := startFakeAPI(t, fakegemini.ResourceOptions{})
	dir := testutil.OutDir(t)
	rec := startProxy(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: mustURL(t, f.api.URL)})
	pythonStyleUpload(t, rec.URL, uploadFile(), 50_000)
	rec.stop(t)
	f.stop()
	rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir})
	req, _ := http.NewRequest(http.MethodPost, rep.URL+"/upload/v1beta/files?upload_id=x&upload_protocol=resumable", strings.NewReader("abc"))
	req.Header.Set("X-Goog-Upload-Command", "upload")
	req.Header.Set("X-Goog-Upload-Offset", "10")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "a chunk is missing") {
		t.Fatalf("%d %s; want 400 saying a chunk is missing", resp.StatusCode, body)
	}
}
