package clilog

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
)

const detail = "cassette \"default\": request differs:\n  contents[2]: added {\"text\":\"x\"}\nRe-record if intended."

// In a terminal a multi-line value prints as indented lines under its
// record, which stays one logfmt line a tool can still parse.
func TestTextPrintsMultiLineValuesAsLines(t *testing.T) {
	var out bytes.Buffer
	log, err := New(&out, "text", "info")
	if err != nil {
		t.Fatal(err)
	}
	log.With("cassette", "default").Warn("request differs", "detail", detail, "path", "/v1beta/x")
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines:\n%s", len(lines), out.String())
	}
	if !strings.Contains(lines[0], `level=WARN msg="request differs" cassette=default path=/v1beta/x`) || strings.Contains(lines[0], "detail") {
		t.Errorf("record line %q", lines[0])
	}
	if want := []string{`  detail: cassette "default": request differs:`, `      contents[2]: added {"text":"x"}`, `    Re-record if intended.`}; strings.Join(lines[1:], "\n") != strings.Join(want, "\n") {
		t.Errorf("detail lines:\n%s\nwant:\n%s", strings.Join(lines[1:], "\n"), strings.Join(want, "\n"))
	}
	out.Reset()
	log.Warn("hostile", "detail", "a\n\x1b[2Jb\r")
	if !strings.HasSuffix(out.String(), "\n  detail: a\n    \uFFFD[2Jb\uFFFD\n") {
		t.Errorf("control characters reach the terminal: %q", out.String())
	}
	out.Reset()
	log.Info("one line", "detail", "short")
	if strings.Count(out.String(), "\n") != 1 || !strings.Contains(out.String(), "detail=short") {
		t.Errorf("a one-line value stays in the record: %q", out.String())
	}
}

// JSON logs keep one record a line, the value escaped.
func TestJSONKeepsValuesEscaped(t *testing.T) {
	var out bytes.Buffer
	log, err := New(&out, "json", "debug")
	if err != nil {
		t.Fatal(err)
	}
	log.Warn("request differs", "detail", detail)
	var rec map[string]any
	if err := json.Unmarshal(out.Bytes(), &rec); err != nil || rec["detail"] != detail || strings.Count(out.String(), "\n") != 1 {
		t.Errorf("%v: %s", err, out.String())
	}
}

// Records from many goroutines never interleave with another's lines.
func TestTextRecordsStayTogether(t *testing.T) {
	var out bytes.Buffer
	log, _ := New(&out, "text", "info")
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() { log.Warn("x", "detail", "a\nb") })
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	for i := 0; i < len(lines); i += 3 {
		if !strings.Contains(lines[i], "msg=x") || lines[i+1] != "  detail: a" || lines[i+2] != "    b" {
			t.Fatalf("interleaved at line %d:\n%s", i, out.String())
		}
	}
}

func TestBadFormatAndLevel(t *testing.T) {
	if _, err := New(&bytes.Buffer{}, "xml", "info"); err == nil || !strings.Contains(err.Error(), "text or json") {
		t.Errorf("format: %v", err)
	}
	if _, err := New(&bytes.Buffer{}, "text", "loud"); err == nil || !strings.Contains(err.Error(), "debug, info, warn or error") {
		t.Errorf("level: %v", err)
	}
	_ = slog.LevelInfo
}

// The plain format reads like adkproxy's other lines: no time or level
// field, a warning said in words, multi-line values under the record.
func TestPlainReadsLikeTheOtherLines(t *testing.T) {
	var out bytes.Buffer
	log, err := New(&out, "plain", "info")
	if err != nil {
		t.Fatal(err)
	}
	log.With("cassette", "default").Warn("request differs", "detail", detail, "path", "/v1beta/x y")
	log.Info("cassette written", "file", "c/default.yaml")
	log.Debug("not shown")
	want := "adkproxy: warning: request differs cassette=default path=\"/v1beta/x y\"\n" +
		"  detail: cassette \"default\": request differs:\n      contents[2]: added {\"text\":\"x\"}\n    Re-record if intended.\n" +
		"adkproxy: cassette written file=c/default.yaml\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
	out.Reset()
	Without(log, func(r slog.Record) bool { return r.Message == "dropped" }).Warn("dropped")
	if out.Len() != 0 {
		t.Errorf("Without kept %q", out.String())
	}
}
