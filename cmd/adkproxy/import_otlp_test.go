package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

const (
	plantedEmail = "ana.silva@example.com"
	plantedCard  = "4111 1111 1111 1111"
)

// The ADK Go example's run, exported as ADK's spans, with an email planted
// in the user's text and a card number in a tool result, imports into a
// case that scores PASSED offline, placeholders in place of the values.
func TestImportOTLPOfExportedRunScores(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	export := filepath.Join(dir, "prod.otlp.json")
	r := adkproxy(t, nil, "export", "--format", "otlp-json", "--out", export,
		filepath.Join(testutil.RepoRoot(), "examples", "adkgo", "cassettes"))
	if r.code != 0 {
		t.Fatalf("export: exit %d\n%s", r.code, r.stderr)
	}
	data, err := os.ReadFile(export)
	if err != nil {
		t.Fatal(err)
	}
	planted := strings.ReplaceAll(string(data), "local time in Lisbon?", "local time in Lisbon? Mail "+plantedEmail)
	planted = strings.ReplaceAll(planted, "21°C and sunny", "21°C and sunny, paid by "+plantedCard)
	if planted == string(data) || !strings.Contains(planted, plantedEmail) || !strings.Contains(planted, plantedCard) {
		t.Fatal("the export no longer holds the texts the test plants values in")
	}
	if err := os.WriteFile(export, []byte(planted), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "case")
	replacements := filepath.Join(dir, "replacements.json")
	r = adkproxy(t, nil, "import", "otlp", export, "--out", out, "--replacements", replacements)
	if r.code != 0 {
		t.Fatalf("import: exit %d\n%s", r.code, r.stderr)
	}
	for _, want := range []string{"replaced <EMAIL_1> (email address", "replaced <CARD_1> (payment card number",
		"imported 1 session(s), 2 invocation(s), 4 model call(s)"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	cassette, evalSet := filepath.Join(out, "prod.yaml"), filepath.Join(out, "prod.evalset.json")
	for _, f := range []string{cassette, evalSet, replacements} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), plantedEmail) || strings.Contains(string(b), plantedCard) ||
			strings.Contains(string(b), "4111111111111111") {
			t.Errorf("%s holds a planted value", f)
		}
	}
	for _, f := range []string{cassette, evalSet} {
		b, _ := os.ReadFile(f)
		if !strings.Contains(string(b), "Mail <EMAIL_1>") {
			t.Errorf("%s lacks the email's placeholder", f)
		}
	}
	b, _ := os.ReadFile(cassette)
	if !strings.Contains(string(b), "paid by <CARD_1>") {
		t.Errorf("%s lacks the card's placeholder in the tool result", cassette)
	}
	var list []map[string]any
	if b, _ := os.ReadFile(replacements); json.Unmarshal(b, &list) != nil || len(list) != 2 {
		t.Errorf("--replacements: want 2 entries, got %s", b)
	}
	score := adkproxy(t, nil, "score", "--cassettes", out, "--expected", evalSet)
	if score.code != 0 || !strings.Contains(score.stdout, "CASE prod  PASSED") {
		t.Fatalf("score: exit %d\n%s\n%s", score.code, score.stdout, score.stderr)
	}
}

// Bad input exits 65 naming the file and the field; a usage error 64.
func TestImportOTLPBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	notJSON := filepath.Join(dir, "broken.json")
	noCalls := filepath.Join(dir, "empty.json")
	badID := filepath.Join(dir, "badid.json")
	os.WriteFile(notJSON, []byte(`{"resourceSpans": [`), 0o644)
	os.WriteFile(noCalls, []byte(`{"resourceSpans": []}`), 0o644)
	os.WriteFile(badID, []byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"name":"call_llm","traceId":"zz"}]}]}]}`), 0o644)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{notJSON}, 65, notJSON},
		{[]string{noCalls}, 65, "no call_llm span"},
		{[]string{badID}, 65, "resourceSpans[0].scopeSpans[0].spans[0].traceId"},
		{[]string{filepath.Join(dir, "absent.json")}, 65, "absent.json"},
		{[]string{noCalls, "--redact-pattern", "("}, 64, "--redact-pattern"},
		{[]string{}, 64, "want one FILE"},
	} {
		args := append([]string{"import", "otlp"}, tc.args...)
		args = append(args, "--out", filepath.Join(dir, "out"))
		r := adkproxy(t, nil, args...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%q: exit %d, want %d with %q\n%s", tc.args, r.code, tc.code, tc.want, r.stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); err == nil {
		t.Error("a failed import wrote --out")
	}
}
