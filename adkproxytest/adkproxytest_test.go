package adkproxytest_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/adkproxy/adkproxy/adkproxytest"
	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/proxyopt"
	"github.com/adkproxy/adkproxy/internal/engine/fake"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/proxy"
)

// asTest is a testing.TB that runs Start as a test named name would, and
// keeps what Start reports instead of failing the real test.
type asTest struct {
	testing.TB
	name     string
	errors   []string
	cleanups []func()
}

func (a *asTest) Name() string                 { return a.name }
func (a *asTest) Errorf(f string, args ...any) { a.errors = append(a.errors, fmt.Sprintf(f, args...)) }
func (a *asTest) Cleanup(f func())             { a.cleanups = append(a.cleanups, f) }

// end runs the cleanups, as the end of the test would, and returns the
// errors Start reported.
func (a *asTest) end() string {
	for i := len(a.cleanups) - 1; i >= 0; i-- {
		a.cleanups[i]()
	}
	return strings.Join(a.errors, "\n")
}

// scriptedAnswer is what the scripted upstream answers every session's
// first model call with.
const scriptedAnswer = "It is 18 degrees and sunny."

// scriptedUpstream serves adkproxy's scripted fake Gemini API, one turn
// of one answer per session.
func scriptedUpstream(t testing.TB) *httptest.Server {
	t.Helper()
	script, err := fake.ParseScript("upstream.yaml", []byte("turns:\n  - model:\n      - text: "+scriptedAnswer+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	return httptest.NewServer(fake.New(script))
}

func ask(t testing.TB, p *adkproxytest.Proxy, question string) (string, error) {
	t.Helper()
	return askWith(t, p, question, nil)
}

func askWith(t testing.TB, p *adkproxytest.Proxy, question string, config *genai.GenerateContentConfig) (string, error) {
	t.Helper()
	client, err := genai.NewClient(t.Context(), p.ClientConfig())
	if err != nil {
		t.Fatal(err)
	}
	resp, err := client.Models.GenerateContent(t.Context(), "gemini-2.5-flash", genai.Text(question), config)
	if err != nil {
		return "", err
	}
	return resp.Text(), nil
}

// recordCase records questions under the cassette of a subtest named case
// and returns the folder and that subtest's full name.
func recordCase(t *testing.T, questions ...string) (dir, name string) {
	dir = testutil.OutDir(t)
	up := scriptedUpstream(t)
	defer up.Close()
	t.Setenv("GOOGLE_API_KEY", testutil.SecretAPIKey)
	t.Run("case", func(t *testing.T) {
		p := adkproxytest.Start(t, dir, adkproxytest.Record(true), upstream(t, up.URL))
		if !p.Recording() {
			t.Fatal("Record(true) did not record")
		}
		for _, q := range questions {
			if _, err := ask(t, p, q); err != nil {
				t.Fatal(err)
			}
		}
		name = t.Name()
	})
	if t.Failed() {
		t.FailNow()
	}
	return dir, name
}

// TestStartRecordsThenReplaysUnderTheTestName: the cassette is the
// subtest's name, and a test replaying it as recorded passes, offline.
func TestStartRecordsThenReplaysUnderTheTestName(t *testing.T) {
	dir, name := recordCase(t, "What is the weather in Paris?")
	rel, _ := cassettes.FileName(name)
	if _, err := os.Stat(filepath.Join(dir, rel)); err != nil {
		t.Fatalf("no cassette named after the test %s: %v", name, err)
	}
	if n := testutil.CountInDir(t, dir, testutil.SecretAPIKey); n != 0 {
		t.Errorf("the API key was written %d times", n)
	}
	t.Setenv("GOOGLE_API_KEY", "")
	replay := &asTest{TB: t, name: name}
	p := adkproxytest.Start(replay, dir)
	if p.Recording() {
		t.Fatal("Start records with neither ADKPROXY_RECORD nor Record set")
	}
	got, err := ask(t, p, "What is the weather in Paris?")
	if err != nil || got != scriptedAnswer {
		t.Errorf("replay answered %q, %v", got, err)
	}
	if errs := replay.end(); errs != "" {
		t.Errorf("a replay as recorded failed the test:\n%s", errs)
	}
}

// TestStartFailsTheTestWithTheSummary: a changed request, a request with no
// cassette and a recording never requested each fail the test at its end,
// with adkproxy's message and how to re-record.
func TestStartFailsTheTestWithTheSummary(t *testing.T) {
	const paris, rome = "What is the weather in Paris?", "What is the weather in Rome?"
	dir, name := recordCase(t, paris, rome)
	hot := &genai.GenerateContentConfig{Temperature: genai.Ptr[float32](1.5)}
	for _, c := range []struct {
		what, name string
		run        func(p *adkproxytest.Proxy) error
		want       []string
	}{
		{"changed request", name, func(p *adkproxytest.Proxy) error {
			ask(t, p, paris)
			_, err := askWith(t, p, rome, hot)
			return err
		}, []string{"run failed", "1 mismatched", "generationConfig", "ADKPROXY_RECORD=1 go test -run '^TestStartFailsTheTestWithTheSummary$/^case$'"}},
		{"no cassette", "TestNeverRecorded", func(p *adkproxytest.Proxy) error {
			_, err := ask(t, p, paris)
			return err
		}, []string{"1 unmatched", "no such cassette", "ADKPROXY_RECORD=1 go test -run '^TestNeverRecorded$'"}},
		{"recording never requested", name, func(p *adkproxytest.Proxy) error {
			if _, err := ask(t, p, paris); err != nil {
				t.Errorf("the first question, as recorded: %v", err)
			}
			return fmt.Errorf("stopped early on purpose")
		}, []string{"1 unused", "never requested", rome}},
	} {
		tb := &asTest{TB: t, name: c.name}
		p := adkproxytest.Start(tb, dir)
		if err := c.run(p); err == nil {
			t.Errorf("%s: the client got no error", c.what)
		}
		errs := tb.end()
		for _, w := range c.want {
			if !strings.Contains(errs, w) {
				t.Errorf("%s: the test's failure does not say %q:\n%s", c.what, w, errs)
			}
		}
	}
}

// TestStartFailsATestThatNeverReachesItsCassette: a test whose cassette
// exists but that sends no request fails at its end, naming the cassette;
// under lenient replay, where unused recordings pass, it passes too.
func TestStartFailsATestThatNeverReachesItsCassette(t *testing.T) {
	dir, name := recordCase(t, "What is the weather in Paris?")
	tb := &asTest{TB: t, name: name}
	adkproxytest.Start(tb, dir)
	errs := tb.end()
	for _, w := range []string{"run failed", fmt.Sprintf("cassette %q", name), "no request reached it", "ClientConfig"} {
		if !strings.Contains(errs, w) {
			t.Errorf("the test's failure does not say %q:\n%s", w, errs)
		}
	}
	lenient := &asTest{TB: t, name: name}
	adkproxytest.Start(lenient, dir, adkproxytest.Configure(func(c *proxy.Config) { c.Lenient = true }))
	if errs := lenient.end(); errs != "" {
		t.Errorf("lenient replay failed a test that sent nothing:\n%s", errs)
	}
}

// TestHTTPClientSendsEveryHostToTheProxy: code that calls the real API
// host with the helper's http.Client is answered from the cassette.
func TestHTTPClientSendsEveryHostToTheProxy(t *testing.T) {
	p, err := adkproxytest.New("testdata/cassettes", "weather")
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost, "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent",
		strings.NewReader(`{"contents":[{"parts":[{"text":"What is the weather in Paris?"}],"role":"user"}]}`))
	resp, err := p.HTTPClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "You said: What is the weather in Paris?") {
		t.Errorf("%d %s", resp.StatusCode, body)
	}
	if err := p.Close(); err != nil {
		t.Error(err)
	}
}

// TestRecordEnvironmentVariable: ADKPROXY_RECORD=1 records, a value that is
// not a boolean is refused with a message naming it, and a bad cassette
// name is refused before anything is served.
func TestRecordEnvironmentVariable(t *testing.T) {
	up := scriptedUpstream(t)
	defer up.Close()
	t.Setenv(adkproxytest.RecordEnv, "1")
	p, err := adkproxytest.New(t.TempDir(), "x", upstream(t, up.URL))
	if err != nil {
		t.Fatal(err)
	}
	if !p.Recording() {
		t.Error("ADKPROXY_RECORD=1 did not record")
	}
	p.Close()
	t.Setenv(adkproxytest.RecordEnv, "maybe")
	if _, err := adkproxytest.New(t.TempDir(), "x"); err == nil || !strings.Contains(err.Error(), `ADKPROXY_RECORD="maybe"`) {
		t.Errorf("ADKPROXY_RECORD=maybe: %v", err)
	}
	if _, err := adkproxytest.New(t.TempDir(), "../up", adkproxytest.Record(false)); err == nil || !strings.Contains(err.Error(), "..") {
		t.Errorf("cassette ../up: %v", err)
	}
	if _, err := adkproxytest.New(t.TempDir(), "x", adkproxytest.Record(false), adkproxytest.Configure(func(c *proxy.Config) { c.Mode = "loose" })); err == nil {
		t.Error("Configure with an unknown mode was accepted")
	}
}

// upstream sends what is recorded to a fake API at baseURL.
func upstream(t *testing.T, baseURL string) adkproxytest.Option {
	u, err := url.Parse(baseURL)
	if err != nil {
		t.Fatal(err)
	}
	return adkproxytest.Configure(func(c *proxy.Config) { c.Upstream = u })
}

// TestStartIsUnaffectedByABrokenNeighbour: a test reads only its own
// cassette, so another test's broken cassette in the folder neither fails
// it nor is read.
func TestStartIsUnaffectedByABrokenNeighbour(t *testing.T) {
	dir, name := recordCase(t, "What is the weather in Paris?")
	if err := os.WriteFile(filepath.Join(dir, "TestOther.yaml"), []byte("name: TestOther\nsessions: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOOGLE_API_KEY", "")
	replay := &asTest{TB: t, name: name}
	p := adkproxytest.Start(replay, dir)
	if got, err := ask(t, p, "What is the weather in Paris?"); err != nil || got != scriptedAnswer {
		t.Errorf("replay answered %q, %v", got, err)
	}
	if errs := replay.end(); errs != "" {
		t.Errorf("a neighbour's broken cassette failed the test:\n%s", errs)
	}
}

// TestRecordFromAFakeNeedsNoKey: recording from a Config.Upstream that is not
// Google's works with no key set (the client gets replay's placeholder);
// from Google's API the client gets no made-up key.
func TestRecordFromAFakeNeedsNoKey(t *testing.T) {
	t.Setenv("GOOGLE_API_KEY", "")
	t.Setenv("GEMINI_API_KEY", "")
	up := scriptedUpstream(t)
	defer up.Close()
	dir := testutil.OutDir(t)
	rec := &asTest{TB: t, name: "TestRecordFromAFakeNeedsNoKey/fake"}
	p := adkproxytest.Start(rec, dir, adkproxytest.Record(true), upstream(t, up.URL))
	if got, err := ask(t, p, "What is the weather in Paris?"); err != nil || got != scriptedAnswer {
		t.Errorf("recording from a fake with no key: %q, %v", got, err)
	}
	if key := p.ClientConfig().APIKey; key != proxyopt.ReplayPlaceholderKey {
		t.Errorf("key %q, want the placeholder", key)
	}
	if errs := rec.end(); errs != "" {
		t.Errorf("the recording failed:\n%s", errs)
	}
	google := &asTest{TB: t, name: "TestRecordFromAFakeNeedsNoKey/google"}
	if key := adkproxytest.Start(google, dir, adkproxytest.Record(true)).ClientConfig().APIKey; key != "" {
		t.Errorf("recording from Google's API: key %q, want none", key)
	}
	google.end()
}

// TestConfigureFaults: a test given faults through Configure gets them,
// and a test that gives up after one fails at its end.
func TestConfigureFaults(t *testing.T) {
	dir, name := recordCase(t, "What is the weather in Paris?")
	tb := &asTest{TB: t, name: name}
	p := adkproxytest.Start(tb, dir, adkproxytest.Configure(func(c *proxy.Config) { c.Faults = []string{"call 1: 503"} }))
	if _, err := ask(t, p, "What is the weather in Paris?"); err == nil || !strings.Contains(err.Error(), "Error 503") {
		t.Errorf("the first call: %v, want the injected 503", err)
	}
	if errs := tb.end(); !strings.Contains(errs, `fault "call 1: 503" injected`) || !strings.Contains(errs, "1 unused") {
		t.Errorf("a test that gave up after the fault: %q", errs)
	} else if strings.Contains(errs, "no request reached it") {
		t.Errorf("a test whose request got the fault is said to have reached nothing: %q", errs)
	}
	tb = &asTest{TB: t, name: name}
	p = adkproxytest.Start(tb, dir, adkproxytest.Configure(func(c *proxy.Config) { c.Faults = []string{"call 1: 503"} }))
	ask(t, p, "What is the weather in Paris?")
	if got, err := ask(t, p, "What is the weather in Paris?"); err != nil || got != scriptedAnswer {
		t.Errorf("asking again: %q, %v", got, err)
	}
	if errs := tb.end(); errs != "" {
		t.Errorf("a test that asked again failed: %s", errs)
	}
}

// A replay whose cassette folder is missing says how to record it.
func TestMissingFolderSaysHowToRecord(t *testing.T) {
	t.Setenv(adkproxytest.RecordEnv, "")
	_, err := adkproxytest.New(filepath.Join(t.TempDir(), "testdata", "cassettes"), "TestWeather/paris")
	if err == nil || !strings.Contains(err.Error(), "does not exist") || !strings.Contains(err.Error(), "ADKPROXY_RECORD=1 go test -run '^TestWeather$/^paris$'") {
		t.Errorf("error %v, want it to say how to record", err)
	}
}

// TestEmptyDirIsTestdataCassettes: Start and New given no folder record
// into, and replay from, testdata/cassettes beside the test.
func TestEmptyDirIsTestdataCassettes(t *testing.T) {
	up := scriptedUpstream(t)
	defer up.Close()
	t.Chdir(t.TempDir())
	rec, err := adkproxytest.New("", "empty-dir", adkproxytest.Record(true), upstream(t, up.URL))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ask(t, rec, "Hello"); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join("testdata", "cassettes", "empty-dir.yaml")); err != nil {
		t.Fatalf("recording with no folder: %v", err)
	}
	rep, err := adkproxytest.New("", "empty-dir", adkproxytest.Record(false))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := ask(t, rep, "Hello"); err != nil || got != scriptedAnswer {
		t.Errorf("replay with no folder: %q, %v", got, err)
	}
	if err := rep.Close(); err != nil {
		t.Error(err)
	}
}

// TestRecordingTakesTheFolderLock: a recording test holds the folder's
// recording lock, as 'adkproxy record' does, so another process cannot
// record into it meanwhile; the tests of one process share it, and the
// last to close gives it up.
func TestRecordingTakesTheFolderLock(t *testing.T) {
	up := scriptedUpstream(t)
	defer up.Close()
	dir := testutil.OutDir(t)
	locked := func() bool {
		locks, _ := filepath.Glob(filepath.Join(dir, ".*lock*"))
		return len(locks) > 0
	}
	a, err := adkproxytest.New(dir, "a", adkproxytest.Record(true), upstream(t, up.URL))
	if err != nil {
		t.Fatal(err)
	}
	b, err := adkproxytest.New(dir, "b", adkproxytest.Record(true), upstream(t, up.URL))
	if err != nil {
		t.Fatalf("a second recording test in the same process: %v", err)
	}
	if !locked() {
		t.Fatal("recording holds no lock on the folder")
	}
	if err := a.Close(); err != nil || !locked() {
		t.Fatalf("closing one of two recorders: %v, locked %v", err, locked())
	}
	if err := b.Close(); err != nil || locked() {
		t.Errorf("closing the last recorder: %v, locked %v", err, locked())
	}
}
