package judge

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// An ADK-style template parses or is refused, never panics; what parses
// renders its literal text with the braces unescaped and each variable in
// its place.
func FuzzParseADKTemplate(f *testing.F) {
	for _, s := range []string{"{prompt} vs {golden_response}", "{{\"a\": 1}}", "{", "}", "{nope}", "a{{b}}c{response}", ""} {
		f.Add(s)
	}
	vars := adkPromptVars["final_response_match_v2"]
	f.Fuzz(func(t *testing.T, s string) {
		pieces, err := parseADKTemplate(s, vars)
		if err != nil {
			return
		}
		o := &promptOverride{adk: pieces}
		got := o.renderADK(map[string]string{"prompt": "P", "response": "R", "golden_response": "G"})
		want := strings.NewReplacer("{{", "{", "}}", "}", "{prompt}", "P", "{response}", "R", "{golden_response}", "G").Replace(s)
		if got != want {
			t.Errorf("%q renders %q, want %q", s, got, want)
		}
	})
}

// A user's Go template prompt that would build gigabytes ({{range N}} over
// text) is refused with its file and line, and built little.
func TestRunawayPromptTemplateIsBounded(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "final_response_match_v2.tmpl")
	os.WriteFile(path, []byte("{{define \"main\"}}Judge this.\n{{range 3000000}}"+strings.Repeat("x", 64)+"{{end}}{{end}}"), 0o644)
	p, err := LoadPrompts(dir)
	if err != nil {
		t.Fatal(err)
	}
	j := &Judge{prompts: p}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	parts, err := j.prompt("final_response_match_v2", nil, nil, nil)
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), path+": ") || !strings.Contains(err.Error(), "line 2: the output would be more than") {
		t.Fatalf("%d parts, error %v; want one naming %s, line 2 and the output bound", len(parts), err, path)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 64<<20 {
		t.Errorf("rendering allocated %d MB", got>>20)
	}
}
