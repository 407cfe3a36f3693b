package userfiles

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/adkproxy/adkproxy/internal/base/userfile"
	"github.com/adkproxy/adkproxy/internal/data/conformance"
	"github.com/adkproxy/adkproxy/internal/data/evalset"
	"github.com/adkproxy/adkproxy/internal/data/fault"
	"github.com/adkproxy/adkproxy/internal/data/scenarios"
	"github.com/adkproxy/adkproxy/internal/engine/fake"
	"github.com/adkproxy/adkproxy/internal/engine/runpolicy"
	"github.com/adkproxy/adkproxy/internal/engine/toolfake"
	"github.com/adkproxy/adkproxy/internal/feature/eval/judge"
	"github.com/adkproxy/adkproxy/internal/feature/otlpimport"
	"github.com/adkproxy/adkproxy/internal/feature/report/scorediff"
	"github.com/adkproxy/adkproxy/scoring"
)

// Every kind of file adkproxy reads from a user's tree, given a link to
// /dev/zero or a FIFO, is refused at once naming the file, never read (a
// link to /dev/zero used to be read until the process ran out of memory).
func TestEveryUserFileIsRegularOnly(t *testing.T) {
	readers := []struct {
		kind string
		// name is the file's name in its folder; read reads the folder's file.
		name string
		read func(path string) error
	}{
		{"eval set", "x.evalset.json", func(p string) error { _, err := evalset.ReadFile(p); return err }},
		{"eval set folder", "x.evalset.json", func(p string) error { _, err := evalset.Load(filepath.Dir(p)); return err }},
		{"expectations", "x.evalset.json", func(p string) error { _, err := scoring.LoadExpected(p); return err }},
		{"eval config", "test_config.json", func(p string) error { _, err := scoring.LoadConfig(p); return err }},
		{"simulator config", "test_config.json", func(p string) error { _, err := scenarios.LoadSimulatorConfig(p); return err }},
		{"scenarios", "scenarios.json", func(p string) error { _, err := scenarios.LoadFile(p); return err }},
		{"session input", "session_input.json", func(p string) error { _, err := scenarios.LoadSessionInput(p); return err }},
		{"persona registry", "personas.json", func(p string) error { return scenarios.LoadPersonaRegistry(p) }},
		{"faults file", "faults.txt", func(p string) error { _, err := fault.ReadFile(p); return err }},
		{"fake script", "script.yaml", func(p string) error { _, err := fake.ReadScript(p); return err }},
		{"judge prompts folder", "final_response_match_v2.tmpl", func(p string) error { _, err := judge.LoadPrompts(filepath.Dir(p)); return err }},
		{"conformance spec", "spec.yaml", func(p string) error { _, err := conformance.ReadSpec(p); return err }},
		{"conformance recordings", "generated-recordings.yaml", func(p string) error { _, err := conformance.ReadRecordings(p); return err }},
		{"conformance session", "generated-session.yaml", func(p string) error { _, err := conformance.ReadSession(p); return err }},
		{"score result", "result.json", func(p string) error { _, err := scorediff.Load(p); return err }},
		{"run report", "report.json", func(p string) error { _, err := runpolicy.ReadReport(p); return err }},
		{"tool fakes", "fakes.yaml", func(p string) error { _, err := toolfake.Load(p); return err }},
		{"OTLP import", "trace.otlp.json", func(p string) error {
			_, err := otlpimport.Import(p, otlpimport.Options{Out: filepath.Join(filepath.Dir(p), "out")})
			return err
		}},
		{"tool fakes folder", "default.yaml", func(p string) error { _, err := toolfake.Load(filepath.Dir(p)); return err }},
	}
	for _, special := range []string{"device", "FIFO"} {
		for _, r := range readers {
			dir := t.TempDir()
			path := filepath.Join(dir, r.name)
			if special == "device" {
				if err := os.Symlink("/dev/zero", path); err != nil {
					t.Fatal(err)
				}
			} else if err := syscall.Mkfifo(path, 0o644); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- r.read(path) }()
			var err error
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				t.Errorf("%s as a %s: still reading after 10 s", r.kind, special)
				continue
			}
			if !errors.Is(err, userfile.ErrNotRegular) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), special) {
				t.Errorf("%s as a %s: %v; want it refused as not a regular file, naming %s", r.kind, special, err, path)
			}
		}
	}
}
