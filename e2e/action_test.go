package e2e_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// actionFile is the part of action.yml the test reads.
type actionFile struct {
	Inputs map[string]struct {
		Default string `yaml:"default"`
	} `yaml:"inputs"`
	Runs struct {
		Using string `yaml:"using"`
		Steps []struct {
			Name  string            `yaml:"name"`
			ID    string            `yaml:"id"`
			If    string            `yaml:"if"`
			Uses  string            `yaml:"uses"`
			Shell string            `yaml:"shell"`
			Env   map[string]string `yaml:"env"`
			Run   string            `yaml:"run"`
		} `yaml:"steps"`
	} `yaml:"runs"`
}

// fakeGitHub is the issue-comments part of GitHub's REST API: it keeps the
// comments of one pull request and counts the calls that change them.
type fakeGitHub struct {
	mu       sync.Mutex
	comments []map[string]any
	posts    int
	patches  int
	auth     []string
}

func (g *fakeGitHub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.auth = append(g.auth, r.Header.Get("Authorization"))
	body, _ := io.ReadAll(r.Body)
	var in map[string]any
	json.Unmarshal(body, &in)
	switch {
	case r.Method == "GET" && r.URL.Path == "/repos/acme/agent/issues/7/comments":
		if r.URL.Query().Get("page") != "1" {
			json.NewEncoder(w).Encode([]any{})
			return
		}
		list := append([]map[string]any{{"id": 1, "body": "a reviewer's comment"}}, g.comments...)
		json.NewEncoder(w).Encode(list)
	case r.Method == "POST" && r.URL.Path == "/repos/acme/agent/issues/7/comments":
		g.posts++
		c := map[string]any{"id": 100 + len(g.comments), "body": in["body"]}
		g.comments = append(g.comments, c)
		json.NewEncoder(w).Encode(c)
	case r.Method == "PATCH" && strings.HasPrefix(r.URL.Path, "/repos/acme/agent/issues/comments/"):
		g.patches++
		for _, c := range g.comments {
			if fmt.Sprint(c["id"]) == strings.TrimPrefix(r.URL.Path, "/repos/acme/agent/issues/comments/") {
				c["body"] = in["body"]
				json.NewEncoder(w).Encode(c)
				return
			}
		}
		http.NotFound(w, r)
	default:
		http.Error(w, "unexpected "+r.Method+" "+r.URL.String(), http.StatusTeapot)
	}
}

// TestGitHubAction runs the composite action's steps (action.yml at the
// root) outside GitHub, with the environment GitHub gives them, in a pull
// request's checkout: a JS agent whose answer changed is replayed from
// its new cassettes, scored, and diffed against the base branch's; the
// job summary gets all three, the HTML pages are written, the pull request
// gets one comment, updated in place by a second run, and the last step
// fails the job on the diff's --fail-on.
func TestGitHubAction(t *testing.T) {
	t.Parallel()
	root := testutil.RepoRoot()
	node := requireJSClient(t, root)
	if _, err := exec.LookPath("python3"); err != nil {
		testutil.Require(t, "python3")
	}
	action := loadAction(t, root)
	bin := testutil.BuildAdkproxy(t)
	work := t.TempDir()

	// The base branch's run, then the pull request's, in which the agent's
	// first answer changed.
	record := func(script, dir string) {
		fake := startFake(t, bin, script)
		res := runAdkproxy(t, root, bin, childEnv(), "record", "--cassettes", dir, "--upstream", fake, "--", node, "e2e/js/fakeagent.mjs")
		if res.code != 0 {
			t.Fatalf("record: exit %d\n%s", res.code, res.stderr)
		}
	}
	changedScript := filepath.Join(work, "changed.yaml")
	original, _ := os.ReadFile(filepath.Join(root, "e2e", "js", "fakeagent.yaml"))
	os.WriteFile(changedScript, []byte(strings.Replace(string(original), "It is 18 degrees in Paris.", "It is 18 degrees in Paris, take an umbrella.", 1)), 0o644)
	origin, ws := filepath.Join(work, "origin.git"), filepath.Join(work, "workspace")
	git := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git(work, "init", "-q", "--bare", "-b", "main", origin)
	git(work, "clone", "-q", origin, ws)
	git(ws, "checkout", "-q", "-b", "main")
	record(filepath.Join(root, "e2e", "js", "fakeagent.yaml"), filepath.Join(ws, "cassettes"))
	git(ws, "add", "cassettes")
	git(ws, "commit", "-q", "-m", "the base run")
	git(ws, "push", "-q", "origin", "main")
	git(ws, "checkout", "-q", "-b", "change")
	os.RemoveAll(filepath.Join(ws, "cassettes"))
	record(changedScript, filepath.Join(ws, "cassettes"))
	os.WriteFile(filepath.Join(ws, "eval_config.json"), []byte(`{"adkproxy": {"checks": {"no_pii": {"no_personal_data": true}, "few_steps": {"max_steps": 3}}}}`), 0o644)
	os.Symlink(filepath.Join(root, "e2e", "js", "node_modules"), filepath.Join(ws, "node_modules"))
	agent, _ := os.ReadFile(filepath.Join(root, "e2e", "js", "fakeagent.mjs"))
	os.WriteFile(filepath.Join(ws, "fakeagent.mjs"), agent, 0o644)
	os.WriteFile(filepath.Join(ws, "lyon.mjs"), []byte(strings.Replace(string(agent), "What is the weather in Paris?", "What is the weather in Lyon?", 1)), 0o644)

	gh := &fakeGitHub{}
	api := httptest.NewServer(gh)
	defer api.Close()
	event := filepath.Join(work, "event.json")
	os.WriteFile(event, []byte(`{"pull_request": {"number": 7}}`), 0o644)
	inputs := map[string]string{}
	for name, in := range action.Inputs {
		inputs[name] = in.Default
	}
	for k, v := range map[string]string{"command": "node fakeagent.mjs", "score-config": "eval_config.json",
		"diff-base": "true", "diff-fail-on": "response", "comment": "true"} {
		inputs[k] = v
	}

	runAction := func(run int) (summary string, lastStatus int) {
		temp := filepath.Join(work, fmt.Sprintf("runner-temp-%d", run))
		r := runActionSteps(t, root, action, inputs, ws, temp, api.URL, event)
		if !strings.Contains(r.path, filepath.Join(temp, "adkproxy", "bin")) {
			t.Errorf("GITHUB_PATH does not get the built adkproxy: %q", r.path)
		}
		for _, page := range []string{"run.html", "diff.html"} {
			if b, err := os.ReadFile(filepath.Join(r.outputs["html-dir"], page)); err != nil || !strings.Contains(string(b), "<html") {
				t.Errorf("HTML page %s: %v", page, err)
			}
		}
		return r.summary, r.status
	}

	summary, status := runAction(1)
	for _, want := range []string{
		"<!-- adkproxy -->",
		"### Replay: passed",
		"### Score: passed", "few_steps", "no_pii",
		"### Diff against `main`: **failed** (exit 1)", "take an umbrella",
	} {
		if !strings.Contains(summary, want) {
			t.Errorf("the job summary lacks %q", want)
		}
	}
	if status != 1 {
		t.Errorf("the last step exited %d, want 1 (the diff's --fail-on response)", status)
	}
	if t.Failed() || os.Getenv("ADKPROXY_SHOW_SUMMARY") != "" {
		t.Logf("summary:\n%s", summary)
	}
	// The agent changes its question: replay fails, naming the field, and
	// the comment is updated to say so.
	inputs["command"] = "node lyon.mjs"
	summary, status = runAction(2)
	for _, want := range []string{"### Replay: **failed** (exit ", `contents[0].parts[0].text: recorded "What is the weather in Paris?", got "What is the weather in Lyon?"`} {
		if !strings.Contains(summary, want) {
			t.Errorf("the failing run's summary lacks %q", want)
		}
	}
	if status == 0 {
		t.Errorf("the last step exited 0 after a failed replay")
	}
	if t.Failed() || os.Getenv("ADKPROXY_SHOW_SUMMARY") != "" {
		t.Logf("summary:\n%s", summary)
	}
	gh.mu.Lock()
	defer gh.mu.Unlock()
	if gh.posts != 1 || gh.patches != 1 || len(gh.comments) != 1 {
		t.Errorf("two runs made %d comment(s) with %d POST and %d PATCH; want one comment, posted then updated in place", len(gh.comments), gh.posts, gh.patches)
	}
	if len(gh.comments) == 1 && !strings.Contains(fmt.Sprint(gh.comments[0]["body"]), "### Replay: **failed**") {
		t.Errorf("the comment is not the summary: %v", gh.comments[0]["body"])
	}
	for _, a := range gh.auth {
		if a != "Bearer ghs_test_token" {
			t.Errorf("a call to GitHub carried %q, not the action's token", a)
		}
	}
}

// loadAction reads action.yml at the repository's root.
func loadAction(t *testing.T, root string) actionFile {
	t.Helper()
	var action actionFile
	data, err := os.ReadFile(filepath.Join(root, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, &action); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	if action.Runs.Using != "composite" {
		t.Fatalf("action.yml runs.using = %q, want composite", action.Runs.Using)
	}
	return action
}

// actionRun is what one run of the action's steps left: the job summary,
// the run step's outputs, the last step's exit status, what the steps
// added to GITHUB_PATH and what they printed.
type actionRun struct {
	summary, path, log string
	outputs            map[string]string
	status             int
}

// runActionSteps runs the action's steps as GitHub would on a pull
// request's event (GITHUB_BASE_REF main), in the workspace ws, with the
// runner's temporary folder temp and GitHub's API at apiURL: its own
// steps run in bash with their env, GitHub's actions are stood in for
// (Go is on this machine; the upload is GitHub's). Every step but the
// last must exit 0.
func runActionSteps(t *testing.T, root string, action actionFile, inputs map[string]string, ws, temp, apiURL, event string) actionRun {
	t.Helper()
	os.MkdirAll(temp, 0o755)
	files := map[string]string{}
	for _, f := range []string{"GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT", "GITHUB_PATH"} {
		files[f] = filepath.Join(temp, f)
		os.WriteFile(files[f], nil, 0o644)
	}
	r := actionRun{outputs: map[string]string{}}
	expr := regexp.MustCompile(`\$\{\{\s*(.+?)\s*\}\}`)
	var eval func(string) string
	eval = func(s string) string {
		return expr.ReplaceAllStringFunc(s, func(m string) string {
			e := expr.FindStringSubmatch(m)[1]
			switch {
			case e == "github.action_path":
				return root
			case e == "runner.temp":
				return temp
			case e == "github.token":
				return "ghs_test_token"
			case strings.HasPrefix(e, "inputs."):
				in, ok := inputs[strings.TrimPrefix(e, "inputs.")]
				if !ok {
					t.Fatalf("action.yml uses an input it does not declare: %s", m)
				}
				return eval(in)
			case strings.HasPrefix(e, "steps.run.outputs."):
				return r.outputs[strings.TrimPrefix(e, "steps.run.outputs.")]
			}
			t.Fatalf("action.yml uses an expression the test does not know: %s", m)
			return ""
		})
	}
	var log strings.Builder
	for _, step := range action.Runs.Steps {
		if step.Uses != "" {
			if !strings.HasPrefix(step.Uses, "actions/setup-go@") && !strings.HasPrefix(step.Uses, "actions/upload-artifact@") {
				t.Fatalf("step %q uses %s, which this test cannot stand in for", step.Name, step.Uses)
			}
			continue
		}
		if step.If != "" && !strings.Contains(step.If, "inputs.comment == 'true'") {
			t.Fatalf("step %q has a condition the test does not know: %s", step.Name, step.If)
		}
		if step.If != "" && inputs["comment"] != "true" {
			continue
		}
		cmd := exec.Command("bash", "-c", eval(step.Run))
		cmd.Dir = ws
		cmd.Env = append(childEnv(), "GITHUB_WORKSPACE="+ws, "GITHUB_ACTION_PATH="+root, "GITHUB_EVENT_NAME=pull_request",
			"GITHUB_EVENT_PATH="+event, "GITHUB_BASE_REF=main", "GITHUB_HEAD_REF=change", "GITHUB_REPOSITORY=acme/agent",
			"GITHUB_API_URL="+apiURL, "RUNNER_TEMP="+temp, "GITHUB_ACTIONS=true", "CI=true")
		for k, f := range files {
			cmd.Env = append(cmd.Env, k+"="+f)
		}
		for k, v := range step.Env {
			cmd.Env = append(cmd.Env, k+"="+eval(v))
		}
		out, err := cmd.CombinedOutput()
		fmt.Fprintf(&log, "== %s\n%s", step.Name, out)
		code := exitStatus(t, err)
		if step.ID == "run" {
			lines, _ := os.ReadFile(files["GITHUB_OUTPUT"])
			for _, l := range strings.Split(string(lines), "\n") {
				if k, v, ok := strings.Cut(l, "="); ok {
					r.outputs[k] = v
				}
			}
		}
		r.status = code
		if code != 0 && step.Name != "Fail on what failed" {
			t.Fatalf("step %q exited %d:\n%s", step.Name, code, out)
		}
	}
	s, _ := os.ReadFile(files["GITHUB_STEP_SUMMARY"])
	path, _ := os.ReadFile(files["GITHUB_PATH"])
	r.summary, r.path, r.log = string(s), string(path), log.String()
	return r
}

// TestGitHubActionRunsNoCodeByDefault: a pull request's eval config holds a
// custom metric whose command touches a marker file. The action scores
// only (command empty); under its defaults the metric does not run, the
// job fails with score's 65 and the summary names the refused metric and
// the input that allows it; with no-code "false" (a trusted branch) it
// runs, as with adk eval, and the job passes. A value that is neither
// true nor false fails the job without scoring.
func TestGitHubActionRunsNoCodeByDefault(t *testing.T) {
	t.Parallel()
	root := testutil.RepoRoot()
	action := loadAction(t, root)
	testutil.BuildAdkproxy(t) // the action builds its own; this fails early with the build's output
	work := t.TempDir()
	ws := filepath.Join(work, "workspace")
	cassettes := filepath.Join(ws, "cassettes")
	os.MkdirAll(cassettes, 0o755)
	weather := filepath.Join(root, "examples", "weather")
	for src, dst := range map[string]string{
		filepath.Join(weather, "cassettes", "default.yaml"): filepath.Join(cassettes, "default.yaml"),
		filepath.Join(weather, "weather.evalset.json"):      filepath.Join(ws, "weather.evalset.json"),
	} {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(dst, b, 0o644)
	}
	marker := filepath.Join(work, "pwned")
	os.WriteFile(filepath.Join(ws, "eval_config.json"), []byte(`{"criteria": {"tool_trajectory_avg_score": 1.0, "innocent": 0.5},
	  "custom_metrics": {"innocent": {"command": ["sh", "-c", "touch `+marker+`; echo '{\"overall_score\": 1}'"]}}}`), 0o644)
	event := filepath.Join(work, "event.json")
	os.WriteFile(event, []byte(`{"pull_request": {"number": 7}}`), 0o644)
	inputs := map[string]string{}
	for name, in := range action.Inputs {
		inputs[name] = in.Default
	}
	inputs["score-config"], inputs["score-expected"], inputs["html"] = "eval_config.json", "weather.evalset.json", "false"

	r := runActionSteps(t, root, action, inputs, ws, filepath.Join(work, "temp-default"), "http://127.0.0.1:1", event)
	if _, err := os.Stat(marker); err == nil {
		t.Fatalf("under the action's defaults the pull request's custom metric ran\n%s", r.log)
	}
	for _, want := range []string{"### Score: **failed** (exit 65)", "--no-code: refused 1 custom metric(s)", `innocent (command ["sh","-c"`, "`no-code: false`"} {
		if !strings.Contains(r.summary, want) {
			t.Errorf("the job summary lacks %q\nsummary:\n%s", want, r.summary)
		}
	}
	if t.Failed() || os.Getenv("ADKPROXY_SHOW_SUMMARY") != "" {
		t.Logf("summary:\n%s", r.summary)
	}
	if r.status != 65 || r.outputs["status"] != "65" {
		t.Errorf("the last step exited %d (status output %q), want 65: score's refusal fails the job", r.status, r.outputs["status"])
	}

	inputs["no-code"] = "false"
	r = runActionSteps(t, root, action, inputs, ws, filepath.Join(work, "temp-trusted"), "http://127.0.0.1:1", event)
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("with no-code false the custom metric did not run: %v\n%s", err, r.log)
	}
	if !strings.Contains(r.summary, "### Score: passed") || r.status != 0 {
		t.Errorf("with no-code false: last step %d, summary:\n%s", r.status, r.summary)
	}

	os.Remove(marker)
	inputs["no-code"] = "False"
	r = runActionSteps(t, root, action, inputs, ws, filepath.Join(work, "temp-typo"), "http://127.0.0.1:1", event)
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("no-code %q ran the custom metric", inputs["no-code"])
	}
	if r.status == 0 || !strings.Contains(r.summary, `no-code`) || !strings.Contains(r.summary, `"False"`) {
		t.Errorf("no-code %q: last step %d, want a failure naming the input; summary:\n%s", inputs["no-code"], r.status, r.summary)
	}
}
