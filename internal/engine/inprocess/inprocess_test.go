package inprocess_test

import (
	"errors"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/adkproxy/adkproxy/internal/engine/fake"
	"github.com/adkproxy/adkproxy/internal/engine/inprocess"
	"github.com/adkproxy/adkproxy/proxy"
)

func ask(t *testing.T, rec *inprocess.Recorder, key string) (string, error) {
	t.Helper()
	client, err := rec.GeminiClient(key)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := client.Models.GenerateContent(t.Context(), "gemini-2.5-flash", genai.Text("Weather in Paris?"), nil)
	if err != nil {
		return "", err
	}
	return resp.Text(), nil
}

// TestRecordThenReplayInProcess: the genai client's calls reach the
// recorder with no socket, are recorded from a real upstream under the
// folder's lock with the key redacted, and replay answers them offline;
// a call replay cannot answer ends with the rerecord hint.
func TestRecordThenReplayInProcess(t *testing.T) {
	t.Parallel()
	script, err := fake.ParseScript("upstream.yaml", []byte("turns:\n  - model:\n      - text: Sunny.\n"))
	if err != nil {
		t.Fatal(err)
	}
	up := httptest.NewServer(fake.New(script))
	defer up.Close()
	u, _ := url.Parse(up.URL)
	dir := filepath.Join(t.TempDir(), "judge")
	const key = "AIzaSyIN-PROCESS-TEST-KEY-0123456789ab"
	rec, err := inprocess.Start(proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: u}, inprocess.Options{Rerecord: "record again"})
	if err != nil {
		t.Fatal(err)
	}
	if locks, _ := filepath.Glob(filepath.Join(dir, ".*lock*")); len(locks) != 1 {
		t.Errorf("recording holds no lock on its folder: %v", locks)
	}
	if got, err := ask(t, rec, key); err != nil || got != "Sunny." {
		t.Fatalf("recording: %q, %v", got, err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if len(files) != 1 {
		t.Fatalf("cassettes written: %v", files)
	}
	data, _ := os.ReadFile(files[0])
	if strings.Contains(string(data), key) {
		t.Error("the key reached the cassette")
	}

	replay, err := inprocess.Start(proxy.Config{Mode: proxy.ModeReplay, Dir: dir}, inprocess.Options{Rerecord: "record again"})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := ask(t, replay, "placeholder"); err != nil || got != "Sunny." {
		t.Errorf("replay: %q, %v", got, err)
	}
	if _, err := ask(t, replay, "placeholder"); err == nil || !strings.Contains(err.Error(), "record again") {
		t.Errorf("a call replay cannot answer: %v, want the rerecord hint", err)
	}
	replay.Close()
}

// TestStartSaysWhichFolder: a folder that does not exist is an OpenError
// naming where it came from and how to record it (the hint was never
// added before: the check looked for os.ErrNotExist, which the proxy's
// missing-folder error is not).
func TestStartSaysWhichFolder(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "none")
	_, err := inprocess.Start(proxy.Config{Mode: proxy.ModeReplay, Dir: dir}, inprocess.Options{Where: "--sim-cassettes", Missing: "record the simulated user first"})
	var open *inprocess.OpenError
	if !errors.As(err, &open) || !strings.HasPrefix(err.Error(), "--sim-cassettes: ") || !strings.Contains(err.Error(), "(record the simulated user first)") {
		t.Errorf("a missing folder: %v", err)
	}
}

// TestMissingIsEmpty: with MissingIsEmpty a replay folder that does not
// exist holds no calls: the recorder starts, a call is a miss saying the
// folder does not exist, and nothing is left behind.
func TestMissingIsEmpty(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "none")
	rec, err := inprocess.Start(proxy.Config{Mode: proxy.ModeReplay, Dir: dir}, inprocess.Options{Where: "--judge-cassettes", Rerecord: "record again", MissingIsEmpty: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ask(t, rec, "placeholder"); err == nil || !strings.Contains(err.Error(), "--judge-cassettes "+dir+" does not exist (its recording made no call); record again") ||
		!strings.Contains(err.Error(), "no such cassette in "+dir+" ") || strings.Contains(err.Error(), os.TempDir()+string(filepath.Separator)+"adkproxy-") {
		t.Errorf("a call: %v; want it to name %s, the folder given, and no stand-in for it", err, dir)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the folder was made: %v", err)
	}
}
