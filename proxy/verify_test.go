package proxy_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"google.golang.org/genai"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/matcher"
	"github.com/adkproxy/adkproxy/proxy"
)

// weatherAgent is a minimal agent on the official Go client: it asks a
// question, runs the get_weather tool the model calls, and sends the
// result back. Each field is something a refactor might change.
type weatherAgent struct {
	instruction string
	tools       []string // declared function names; the first is called
	question    string
	tempC       int
	stopEarly   bool // stop after the tool call, never sending its result
	cassette    string
}

func (a weatherAgent) withDefaults() weatherAgent {
	if a.instruction == "" {
		a.instruction = "You are a weather assistant. Use get_weather for every city you are asked about."
	}
	if a.tools == nil {
		a.tools = []string{"get_weather"}
	}
	if a.question == "" {
		a.question = "What is the weather in Paris?"
	}
	if a.tempC == 0 {
		a.tempC = 18
	}
	return a
}

// run returns the agent's final text, or the API error that stopped it.
func (a weatherAgent) run(t *testing.T, base string) (string, error) {
	t.Helper()
	text, _, err := a.converse(t, base, nil)
	return text, err
}

// converse asks the question after an earlier conversation and returns the
// answer and the conversation including this turn.
func (a weatherAgent) converse(t *testing.T, base string, earlier []*genai.Content) (string, []*genai.Content, error) {
	t.Helper()
	a = a.withDefaults()
	ctx := context.Background()
	opts := genai.HTTPOptions{BaseURL: base}
	if a.cassette != "" {
		opts.Headers = http.Header{"X-Adkproxy-Cassette": {a.cassette}}
	}
	client, err := genai.NewClient(ctx, &genai.ClientConfig{APIKey: testutil.SecretAPIKey, Backend: genai.BackendGeminiAPI, HTTPOptions: opts})
	if err != nil {
		t.Fatal(err)
	}
	var decls []*genai.FunctionDeclaration
	for _, name := range a.tools {
		decls = append(decls, &genai.FunctionDeclaration{Name: name, Description: "Tool " + name,
			Parameters: &genai.Schema{Type: genai.TypeObject, Properties: map[string]*genai.Schema{"city": {Type: genai.TypeString}}}})
	}
	config := &genai.GenerateContentConfig{
		SystemInstruction: genai.NewContentFromText(a.instruction, genai.RoleUser),
		Tools:             []*genai.Tool{{FunctionDeclarations: decls}},
	}
	history := append(append([]*genai.Content(nil), earlier...), genai.Text(a.question)...)
	first, err := client.Models.GenerateContent(ctx, "gemini-2.5-flash", history, config)
	if err != nil {
		return "", nil, err
	}
	calls := first.FunctionCalls()
	if len(calls) != 1 {
		t.Fatalf("want one tool call, got %+v", calls)
	}
	if a.stopEarly {
		return "stopped", nil, nil
	}
	history = append(history, first.Candidates[0].Content, genai.NewContentFromFunctionResponse(
		calls[0].Name, map[string]any{"city": calls[0].Args["city"], "temp_c": a.tempC}, genai.RoleUser))
	final, err := client.Models.GenerateContent(ctx, "gemini-2.5-flash", history, config)
	if err != nil {
		return "", nil, err
	}
	return final.Text(), append(history, final.Candidates[0].Content), nil
}

// recordAgent records one run of the default agent and returns the folder.
func recordAgent(t *testing.T, agents ...weatherAgent) string {
	t.Helper()
	dir := testutil.OutDir(t)
	up := httptest.NewServer(&fakegemini.Handler{})
	defer up.Close()
	rec := startProxy(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: mustURL(t, up.URL)})
	if len(agents) == 0 {
		agents = []weatherAgent{{}}
	}
	for _, a := range agents {
		if _, err := a.run(t, rec.URL); err != nil {
			t.Fatal(err)
		}
	}
	rec.stop(t)
	return dir
}

func apiMessage(t *testing.T, err error) string {
	t.Helper()
	var apiErr genai.APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("want an API error from adkproxy, got %v", err)
	}
	if apiErr.Code != 400 || apiErr.Status != "FAILED_PRECONDITION" {
		t.Errorf("API error %d %s, want 400 FAILED_PRECONDITION", apiErr.Code, apiErr.Status)
	}
	return apiErr.Message
}

func TestChangedToolResultNamesPathAndBothValues(t *testing.T) {
	dir := recordAgent(t)
	rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir})
	_, err := weatherAgent{tempC: 23}.run(t, rep.URL)
	msg := apiMessage(t, err)
	for _, want := range []string{
		`cassette "default", session 1, invocation 1 ("What is the weather in Paris?"), step 1, agent gemini-2.5-flash: request differs from the recording`,
		"contents[2].parts[get_weather].functionResponse.response.temp_c: recorded 18, got 23",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	rep.stop(t)
	if st := rep.Stats(); st.Mismatched != 1 || st.Unmatched != 0 || st.Replayed != 1 || st.Unused != 0 {
		t.Errorf("stats %+v: the differing recording is reported once, as mismatched, not also as unused", st)
	}
	o := rep.Misses()[0]
	if o.Outcome != matcher.OutcomeMismatched || o.Session != 1 || o.Invocation != 1 || o.Step == nil || *o.Step != 1 ||
		len(o.Diffs) != 1 || o.Diffs[0].Recorded != "18" || o.Diffs[0].Got != "23" {
		t.Errorf("report entry %+v", o)
	}
}

func TestChangedSystemInstructionIsReportedAsSuch(t *testing.T) {
	dir := recordAgent(t)
	rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir})
	_, err := weatherAgent{instruction: "You are a travel assistant. Use get_weather for every city you are asked about."}.run(t, rep.URL)
	msg := apiMessage(t, err)
	want := "systemInstruction.parts[0].text: changed: You are a [-weather-] {+travel+} assistant."
	if !strings.Contains(msg, want) || !strings.Contains(msg, "step 0") {
		t.Errorf("error lacks %q at step 0:\n%s", want, msg)
	}
	if strings.Contains(msg, "contents[") {
		t.Errorf("only the instruction changed, yet contents are blamed:\n%s", msg)
	}
}

func TestAddedToolIsReported(t *testing.T) {
	dir := recordAgent(t)
	rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir})
	_, err := weatherAgent{tools: []string{"get_weather", "get_forecast"}}.run(t, rep.URL)
	if msg := apiMessage(t, err); !strings.Contains(msg, "tools[0].functionDeclarations[get_forecast]: added") {
		t.Errorf("error does not name the added tool:\n%s", msg)
	}
}

// TestAgentThatStopsEarlyLeavesUnusedSteps: strict replay must fail a run
// whose agent skipped recorded steps, even though every request matched.
func TestAgentThatStopsEarlyLeavesUnusedSteps(t *testing.T) {
	dir := recordAgent(t)
	rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir})
	if _, err := (weatherAgent{stopEarly: true}).run(t, rep.URL); err != nil {
		t.Fatal(err)
	}
	rep.stop(t)
	st := rep.Stats()
	if st.Replayed != 1 || st.Unused != 1 || !errors.Is(rep.Failure(), proxy.ErrRunFailed) {
		t.Fatalf("stats %+v, failure %v; want 1 replayed and 1 unused, failing the run", st, rep.Failure())
	}
	var unused *matcher.Outcome
	for _, o := range rep.Report().Outcomes {
		if o.Outcome == matcher.OutcomeUnused {
			unused = &o
		}
	}
	if unused == nil || unused.Step == nil || *unused.Step != 1 || !strings.Contains(unused.Message, "never requested") {
		t.Fatalf("unused outcome %+v", unused)
	}
}

func TestLenientModeServesAndReports(t *testing.T) {
	dir := recordAgent(t)
	rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir, Lenient: true})
	text, err := weatherAgent{tempC: 23}.run(t, rep.URL)
	if err != nil {
		t.Fatalf("lenient replay failed the agent: %v", err)
	}
	if !strings.Contains(text, "18") {
		t.Errorf("lenient replay should serve the recorded answer (about 18°C), got %q", text)
	}
	rep.stop(t)
	st := rep.Stats()
	if st.Mismatched != 1 || st.Replayed != 2 || st.Unused != 0 {
		t.Fatalf("stats %+v", st)
	}
	if m := rep.Misses()[0]; !m.Served || !strings.Contains(m.Message, "temp_c: recorded 18, got 23") {
		t.Fatalf("miss %+v", m)
	}
}

func TestInvocationHeaderOverridesGrouping(t *testing.T) {
	up := httptest.NewServer(&fakegemini.Handler{})
	defer up.Close()
	dir := testutil.OutDir(t)
	rec := startProxy(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: mustURL(t, up.URL)})
	for _, q := range []string{"first question", "an unrelated question"} {
		body(t, post(t, rec.URL, generatePath, http.Header{"X-Adkproxy-Invocation": {"checkout-flow"}},
			fmt.Sprintf(`{"contents":[{"role":"user","parts":[{"text":%q}]}]}`, q)))
	}
	body(t, post(t, rec.URL, generatePath, nil, `{"contents":[{"role":"user","parts":[{"text":"untagged"}]}]}`))
	rec.stop(t)
	c, err := cassettes.Load(filepath.Join(dir, "default.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	places := map[string]cassettes.Place{}
	for _, x := range c.Exchanges {
		var req struct {
			Contents []struct{ Parts []struct{ Text string } }
		}
		json.Unmarshal(x.Request.Body, &req)
		places[req.Contents[0].Parts[0].Text] = *x.Place
	}
	a, b, u := places["first question"], places["an unrelated question"], places["untagged"]
	if a.Session != b.Session || a.Invocation != b.Invocation || a.Tag != "checkout-flow" {
		t.Errorf("tagged requests were not grouped: %+v %+v", a, b)
	}
	if u.Session == a.Session && u.Invocation == a.Invocation {
		t.Errorf("untagged request joined the tagged invocation: %+v", u)
	}
}

// TestRecordingTwiceGivesTheSameFile: apart from timing, a cassette is a
// pure function of the traffic, so re-recording shows no noise in git.
func TestRecordingTwiceGivesTheSameFile(t *testing.T) {
	agents := []weatherAgent{{}, {question: "And in Tokyo?"}}
	read := func(dir string) string {
		b, err := os.ReadFile(filepath.Join(dir, "default.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		return regexp.MustCompile(`(?m)^\s*(latency_ms|after_ms|recorded_at): .*\n`).ReplaceAllString(string(b), "")
	}
	first, second := read(recordAgent(t, agents...)), read(recordAgent(t, agents...))
	if first != second {
		t.Fatalf("two recordings of the same traffic differ beyond timing:\n%s\n---\n%s", first, second)
	}
	if !strings.Contains(first, "trajectory:") || !strings.Contains(first, "tool_calls: [{name: get_weather, args: {city: Paris}}]") {
		t.Fatalf("cassette lacks the readable trajectory:\n%s", first)
	}
}

func TestRecordModes(t *testing.T) {
	t.Run("once replays an existing cassette and records a missing one", func(t *testing.T) {
		dir := recordAgent(t)
		up := httptest.NewServer(&fakegemini.Handler{})
		defer up.Close()
		rec := startProxy(t, proxy.Config{Mode: proxy.ModeRecordOnce, Dir: dir, Upstream: mustURL(t, up.URL)})
		if _, err := (weatherAgent{tempC: 30}).run(t, rec.URL); err == nil {
			t.Fatal("once mode must treat a differing request on an existing cassette as an error")
		}
		if _, err := (weatherAgent{cassette: "fresh"}).run(t, rec.URL); err != nil {
			t.Fatal(err)
		}
		rec.stop(t)
		st := rec.Stats()
		if st.Replayed != 1 || st.Recorded != 2 || st.Mismatched != 1 {
			t.Fatalf("stats %+v: want the existing cassette replayed (1, then a mismatch) and the new one recorded (2)", st)
		}
		if err := rec.Failure(); !errors.Is(err, proxy.ErrRunFailed) || !strings.Contains(err.Error(), "(mode record-once): 1 mismatched") {
			t.Fatalf("Failure() = %v, want the mismatch on the existing cassette to fail the run", err)
		}
		if _, err := os.Stat(filepath.Join(dir, "fresh.yaml")); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("new-episodes replays what is known and adds what is not", func(t *testing.T) {
		dir := recordAgent(t)
		up := httptest.NewServer(&fakegemini.Handler{})
		defer up.Close()
		rec := startProxy(t, proxy.Config{Mode: proxy.ModeRecordNewEpisodes, Dir: dir, Upstream: mustURL(t, up.URL)})
		if _, err := (weatherAgent{}).run(t, rec.URL); err != nil {
			t.Fatal(err)
		}
		if _, err := (weatherAgent{question: "What is the weather in Oslo?"}).run(t, rec.URL); err != nil {
			t.Fatal(err)
		}
		rec.stop(t)
		if st := rec.Stats(); st.Replayed != 2 || st.Recorded != 2 || rec.Failure() != nil {
			t.Fatalf("stats %+v, failure %v", st, rec.Failure())
		}
		c, err := cassettes.Load(filepath.Join(dir, "default.yaml"))
		if err != nil || len(c.Exchanges) != 4 {
			t.Fatalf("cassette should hold the old and new episodes (4 exchanges): %v", err)
		}
		users := map[string]bool{}
		for _, x := range c.Exchanges {
			users[x.Place.User] = true
		}
		if !users["What is the weather in Paris?"] || !users["What is the weather in Oslo?"] {
			t.Fatalf("invocations %v", users)
		}
	})
	t.Run("passthrough writes nothing", func(t *testing.T) {
		dir := testutil.OutDir(t)
		up := httptest.NewServer(&fakegemini.Handler{})
		defer up.Close()
		rec := startProxy(t, proxy.Config{Mode: proxy.ModePassthrough, Dir: dir, Upstream: mustURL(t, up.URL)})
		if _, err := (weatherAgent{}).run(t, rec.URL); err != nil {
			t.Fatal(err)
		}
		rec.stop(t)
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Fatalf("passthrough wrote %d files", len(entries))
		}
		if c := rec.Report().Counts; c[matcher.OutcomeForwarded] != 2 {
			t.Fatalf("counts %v", c)
		}
	})
}

// TestParallelSessionsStayApart: 32 agents at once, half sharing their first
// question, each with a second question of its own, through one proxy:
// every session is recorded whole and replays cleanly in parallel.
func TestParallelSessionsStayApart(t *testing.T) {
	const n = 32
	firstQuestion := func(i int) string {
		return []string{"What is the weather in Paris?", "What is the weather in London?"}[i%2]
	}
	secondQuestion := func(i int) string { return fmt.Sprintf("And what about City%02d?", i) }
	session := func(base string, i int) []string {
		var out []string
		var history []*genai.Content
		for _, q := range []string{firstQuestion(i), secondQuestion(i)} {
			text, h, err := weatherAgent{question: q, cassette: "parallel"}.converse(t, base, history)
			if err != nil {
				t.Errorf("session %d, %q: %v", i, q, err)
				return out
			}
			history = h
			out = append(out, text)
		}
		return out
	}
	runAll := func(base string) [][]string {
		out := make([][]string, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() { defer wg.Done(); out[i] = session(base, i) }()
		}
		wg.Wait()
		return out
	}

	dir := testutil.OutDir(t)
	up := httptest.NewServer(&fakegemini.Handler{})
	rec := startProxy(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: mustURL(t, up.URL)})
	recorded := runAll(rec.URL)
	rec.stop(t)
	up.Close()

	// Each client session asked its two questions in separate invocations,
	// so the cassette must hold 64 invocations of 2 steps, and every second
	// question must sit in a session whose first question is its own.
	c, err := cassettes.Load(filepath.Join(dir, "parallel.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	type invKey struct{ s, i int }
	steps := map[invKey]int{}
	firstOf := map[int]string{}
	secondOf := map[int]string{}
	for _, x := range c.Exchanges {
		p := x.Place
		steps[invKey{p.Session, p.Invocation}]++
		if p.Invocation == 1 {
			firstOf[p.Session] = p.User
		} else {
			secondOf[p.Session] = p.User
		}
	}
	if len(c.Exchanges) != 4*n || len(steps) != 2*n || len(firstOf) != n {
		t.Fatalf("%d exchanges in %d invocations of %d sessions; want %d, %d, %d", len(c.Exchanges), len(steps), len(firstOf), 4*n, 2*n, n)
	}
	for k, count := range steps {
		if count != 2 {
			t.Errorf("session %d invocation %d has %d steps, want 2", k.s, k.i, count)
		}
	}
	seen := map[string]bool{}
	for s, second := range secondOf {
		var i int
		fmt.Sscanf(second, "And what about City%02d?", &i)
		if firstOf[s] != firstQuestion(i) || seen[second] {
			t.Errorf("session %d mixes %q with %q", s, firstOf[s], second)
		}
		seen[second] = true
	}
	if len(seen) != n {
		t.Errorf("%d distinct second questions recorded, want %d", len(seen), n)
	}

	rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir})
	replayed := runAll(rep.URL)
	rep.stop(t)
	if st := rep.Stats(); st.Replayed != 4*n || rep.Failure() != nil {
		t.Fatalf("replay stats %+v, failure %v; misses %v", st, rep.Failure(), rep.Misses())
	}
	for i := range n {
		if fmt.Sprint(recorded[i]) != fmt.Sprint(replayed[i]) {
			t.Errorf("session %d: recorded %q, replayed %q", i, recorded[i], replayed[i])
		}
	}
}

// reportSchema compiles the checked-in report.schema.json.
func reportSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	schema, err := jsonschema.NewCompiler().Compile("report.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return schema
}

// TestReportMatchesItsSchema checks a report holding every kind of outcome
// against the checked-in JSON Schema that documents it.
func TestReportMatchesItsSchema(t *testing.T) {
	dir := recordAgent(t, weatherAgent{}, weatherAgent{question: "What is the weather in Tokyo?"})
	rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir})
	weatherAgent{tempC: 23}.run(t, rep.URL)                          // matched + mismatched
	weatherAgent{question: "Is it raining in Rome?"}.run(t, rep.URL) // unmatched
	rep.stop(t)                                                      // unused: the Tokyo conversation
	report := rep.Report()
	for _, kind := range []matcher.OutcomeKind{matcher.OutcomeMatched, matcher.OutcomeMismatched, matcher.OutcomeUnmatched, matcher.OutcomeUnused} {
		if report.Counts[kind] == 0 {
			t.Errorf("no %s outcome in %v", kind, report.Counts)
		}
	}
	raw, _ := json.Marshal(report)
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	schema := reportSchema(t)
	if err := schema.Validate(doc); err != nil {
		t.Fatalf("report does not match report.schema.json: %v\n%s", err, raw)
	}
	// The schema must also reject what is wrong, or it proves nothing.
	bad := strings.Replace(string(raw), `"mismatched"`, `"mismatch"`, 1)
	badDoc, _ := jsonschema.UnmarshalJSON(strings.NewReader(bad))
	if schema.Validate(badDoc) == nil {
		t.Fatal("the schema accepted an unknown outcome kind")
	}
}

// TestIgnorePathsApplyToMatchingAndDiffs: a field left out with --ignore
// neither breaks a match nor shows in a diff.
func TestIgnorePathsApplyToMatchingAndDiffs(t *testing.T) {
	up := httptest.NewServer(&fakegemini.Handler{})
	defer up.Close()
	dir := testutil.OutDir(t)
	m, err := matcher.New("generationConfig.seed")
	if err != nil {
		t.Fatal(err)
	}
	rec := startProxy(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: mustURL(t, up.URL), Matcher: m})
	body(t, post(t, rec.URL, generatePath, nil, `{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"generationConfig":{"seed":1}}`))
	rec.stop(t)
	rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir, Matcher: m})
	if resp := post(t, rep.URL, generatePath, nil, `{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"generationConfig":{"seed":99}}`); resp.StatusCode != 200 {
		t.Fatalf("ignored field broke the match: %s", body(t, resp))
	}
	if _, err := matcher.New("contents[1x]"); err == nil {
		t.Fatal("a malformed ignore path was accepted")
	}
}

// TestThoughtSignaturesMustMatch: Gemini rejects a history whose thought
// signature was altered, so replay must not accept one either.
func TestThoughtSignaturesMustMatch(t *testing.T) {
	up, _ := countingUpstream()
	defer up.Close()
	history := `{"contents":[{"role":"user","parts":[{"text":"add 2 and 3"}]},` +
		`{"role":"model","parts":[{"functionCall":{"name":"sum","args":{"a":2,"b":3}},"thoughtSignature":"EuIECt8EAQw51sdn"}]},` +
		`{"role":"user","parts":[{"functionResponse":{"name":"sum","response":{"result":5}}}]}]}`
	dir := record(t, up.URL, history)
	rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir})
	resp := post(t, rep.URL, generatePath, nil, strings.Replace(history, "EuIECt8EAQw51sdn", "EuIECt8EAQw51sdX", 1))
	if msg := body(t, resp); resp.StatusCode != 400 || !strings.Contains(msg, `contents[1].parts[sum].thoughtSignature: recorded \"EuIECt8EAQw51sdn\", got \"EuIECt8EAQw51sdX\"`) {
		t.Fatalf("%d %s", resp.StatusCode, msg)
	}
}
