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
	kinds := map[any]int{}
	b, _ = os.ReadFile(replacements)
	if json.Unmarshal(b, &list) != nil {
		t.Fatalf("--replacements: %s", b)
	}
	for _, e := range list {
		kinds[e["kind"]]++
	}
	// The export's ids ("<cassette>/<session>") are not machine-made, so
	// they are replaced too.
	if kinds["email"] != 1 || kinds["card"] != 1 || kinds["session_id"] != 1 || kinds["invocation_id"] != 2 || len(list) != 5 {
		t.Errorf("--replacements: want an email, a card and the ids, got %s", b)
	}
	score := adkproxy(t, nil, "score", "--cassettes", out, "--expected", evalSet)
	if score.code != 0 || !strings.Contains(score.stdout, "CASE prod  PASSED") {
		t.Fatalf("score: exit %d\n%s\n%s", score.code, score.stdout, score.stderr)
	}
	// --keep-ids keeps the ids; --report writes the whole account.
	report := filepath.Join(dir, "report.json")
	r = adkproxy(t, nil, "import", "otlp", export, "--out", filepath.Join(dir, "kept"), "--keep-ids", "--report", report)
	var rep struct {
		SessionIDs   []struct{ ID string } `json:"session_ids"`
		Replacements []any                 `json:"replacements"`
		Missing      []any                 `json:"missing"`
	}
	if b, _ := os.ReadFile(report); r.code != 0 || json.Unmarshal(b, &rep) != nil || len(rep.Replacements) != 2 ||
		len(rep.SessionIDs) != 1 || rep.SessionIDs[0].ID == "" || strings.HasPrefix(rep.SessionIDs[0].ID, "<") || rep.Missing == nil {
		t.Errorf("--keep-ids --report: exit %d, report %s\n%s", r.code, b, r.stderr)
	}
}

// Bad input exits 65 naming the file and the field; a usage error 64.
func TestImportOTLPBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	notJSON := filepath.Join(dir, "broken.json")
	noCalls := filepath.Join(dir, "nocalls.json")
	empty := filepath.Join(dir, "empty.json")
	notADK := filepath.Join(dir, "notadk.json")
	os.WriteFile(empty, nil, 0o644)
	os.WriteFile(notADK, []byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"name":"GET","traceId":"0102030405060708090a0b0c0d0e0f10","spanId":"0102030405060708"}]}]}]}`), 0o644)
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
		{[]string{noCalls}, 65, "no ADK span"},
		{[]string{empty}, 65, "empty.json: empty"},
		{[]string{notADK}, 65, "notadk.json: no ADK span"},
		{[]string{noCalls, "--keep-ids=maybe"}, 64, "keep-ids"},
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
