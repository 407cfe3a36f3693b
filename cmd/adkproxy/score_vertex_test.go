package main

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// fakeVertex is a scripted Vertex AI evaluation endpoint and OAuth token
// endpoint on loopback: it hands out one access token for a signed service
// account assertion, and answers evaluateInstances calls carrying it with
// a score per response text.
type fakeVertex struct {
	mu       sync.Mutex
	bodies   []map[string]any
	badAuths int
}

func (f *fakeVertex) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if r.URL.Path == "/token" {
		r.ParseForm()
		if r.Form.Get("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer" || r.Form.Get("assertion") == "" {
			http.Error(w, `{"error": "invalid_grant"}`, http.StatusBadRequest)
			return
		}
		io.WriteString(w, `{"access_token": "vertex-test-token", "token_type": "Bearer", "expires_in": 3600}`)
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if r.Header.Get("Authorization") != "Bearer vertex-test-token" {
		f.badAuths++
		http.Error(w, `{"error": {"code": 401, "message": "no token"}}`, http.StatusUnauthorized)
		return
	}
	if r.URL.Path != "/v1/projects/proj-1/locations/us-central1:evaluateInstances" {
		http.Error(w, `{"error": {"code": 404, "message": "wrong path"}}`, http.StatusNotFound)
		return
	}
	var body map[string]any
	json.NewDecoder(r.Body).Decode(&body)
	f.bodies = append(f.bodies, body)
	response := body["instance"].(map[string]any)["response"].(map[string]any)["text"].(string)
	score := "1.0"
	if strings.Contains(response, "Tokyo") {
		score = "0.5"
	}
	io.WriteString(w, `{"metricResults": [{"score": `+score+`, "explanation": "judged `+score+`"}]}`)
}

func serviceAccountFile(t *testing.T, dir, tokenURL string) string {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKCS8PrivateKey(key)
	pemKey := string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	sa, _ := json.Marshal(map[string]string{"type": "service_account", "project_id": "proj-1", "private_key_id": "k1",
		"private_key": pemKey, "client_email": "eval@proj-1.iam.gserviceaccount.com", "client_id": "1", "token_uri": tokenURL})
	return writeTestFile(t, dir, "sa.json", string(sa))
}

// safety_v1 and multi_turn_* are computed by Vertex AI's evaluation
// service, one evaluateInstances call per invocation with
// application-default credentials, recorded once into the judge's folder
// and replayed with no credentials and no endpoint to the same numbers; a
// call that was not recorded names its case, invocation and criterion.
func TestScoreVertexMetricsRecordThenReplay(t *testing.T) {
	t.Parallel()
	dir := testutil.OutDir(t)
	fake := &fakeVertex{}
	up := httptest.NewServer(fake)
	sa := serviceAccountFile(t, t.TempDir(), up.URL+"/token")
	cfg := writeTestFile(t, dir, "test_config.json", `{"criteria": {"tool_trajectory_avg_score": 1.0, "safety_v1": 0.7, "multi_turn_task_success_v1": 0.7}}`)
	judgeDir := filepath.Join(dir, "judge")
	project := []string{"GOOGLE_CLOUD_PROJECT=proj-1", "GOOGLE_CLOUD_LOCATION=us-central1"}
	args := func(out string, extra ...string) []string {
		return append([]string{"score", "--cassettes", weatherCassette, "--expected", weatherEvalSet, "--config", cfg,
			"--judge-cassettes", judgeDir, "--format", "json", "--out", out}, extra...)
	}
	rec := adkproxy(t, append(project, "GOOGLE_APPLICATION_CREDENTIALS="+sa),
		args(filepath.Join(dir, "recorded.json"), "--judge-mode", "record", "--vertex-base-url", up.URL)...)
	up.Close()
	if rec.code != 0 || len(fake.bodies) != 4 || fake.badAuths != 0 {
		t.Fatalf("record: exit %d, %d calls, %d without the token\nstderr:\n%s", rec.code, len(fake.bodies), fake.badAuths, rec.stderr)
	}
	b := fake.bodies[0]
	if b["location"] != "projects/proj-1/locations/us-central1" || mustJSON(t, b["metrics"]) != `[{"predefinedMetricSpec":{"metricSpecName":"safety_v1"}}]` ||
		mustJSON(t, b["instance"]) != `{"prompt":{"text":"What is the weather in Paris?"},"reference":{"text":"It is 18°C and clear in Paris."},"response":{"text":"It is 18°C in Paris, clear."}}` {
		t.Errorf("request %s", mustJSON(t, b))
	}
	if n := testutil.CountInDir(t, judgeDir, "vertex-test-token"); n != 0 {
		t.Errorf("the access token appears %d times in the cassettes", n)
	}

	rep := adkproxy(t, project, args(filepath.Join(dir, "replayed.json"))...)
	if rep.code != 0 {
		t.Fatalf("replay: exit %d\nstderr:\n%s", rep.code, rep.stderr)
	}
	recorded, replayed := readFile(t, filepath.Join(dir, "recorded.json")), readFile(t, filepath.Join(dir, "replayed.json"))
	for _, want := range []string{`"metric_name": "safety_v1",`, `"score": 0.75,`, `"explanation": "judged 0.5"`} {
		if !strings.Contains(replayed, want) {
			t.Errorf("replayed result lacks %s:\n%s", want, replayed)
		}
	}
	if strings.Count(recorded, `"score": 0.75,`) != strings.Count(replayed, `"score": 0.75,`) {
		t.Errorf("replay differs from the recording")
	}

	// Another answer in the run: not recorded, named.
	other := writeTestFile(t, t.TempDir(), "default.yaml", strings.ReplaceAll(readFile(t, filepath.Join(weatherCassette, "default.yaml")), "It is 18°C in Paris, clear.", "It is 18°C in Paris, and clear."))
	miss := adkproxy(t, project, "score", "--cassettes", other, "--expected", weatherEvalSet, "--config", cfg, "--judge-cassettes", judgeDir, "--require-all")
	if miss.code != exitFailure || !strings.Contains(miss.stdout, `case "paris_then_tokyo", invocation 1, safety_v1 (Vertex AI evaluation): judge call not recorded`) {
		t.Errorf("missing recording: exit %d\nstdout:\n%s\nstderr:\n%s", miss.code, miss.stdout, miss.stderr)
	}
	// Without the project, in replay too, the reason says what to set.
	none := adkproxy(t, nil, args(filepath.Join(dir, "none.json"))...)
	if !strings.Contains(readFile(t, filepath.Join(dir, "none.json")), "needs GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION") {
		t.Errorf("no project: exit %d\n%s", none.code, none.stderr)
	}
}
