// Helpers of the diff tests: temporary files, and a recorded cassette
// rewritten as a version 1 file.

package main

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"gopkg.in/yaml.v3"
)

func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func reflectEqual(a, b any) bool { return reflect.DeepEqual(a, b) }

// writeVersion1 writes the exchanges of a recorded (version 2) cassette as
// a version 1 file: a flat list of interactions, bodies as recorded.
func writeVersion1(t *testing.T, from, to string) {
	t.Helper()
	c, err := cassettes.Load(from)
	if err != nil {
		t.Fatal(err)
	}
	type msg struct {
		Method string `yaml:"method,omitempty"`
		Path   string `yaml:"path,omitempty"`
		Status int    `yaml:"status,omitempty"`
		Body   string `yaml:"body"`
	}
	type interaction struct{ Request, Response msg }
	doc := struct {
		Version      int           `yaml:"version"`
		Name         string        `yaml:"name"`
		Interactions []interaction `yaml:"interactions"`
	}{Version: 1, Name: "golden"}
	for _, x := range c.Exchanges {
		if x.Response.Streamed() {
			t.Fatal("writeVersion1 takes unstreamed responses only")
		}
		doc.Interactions = append(doc.Interactions, interaction{
			Request:  msg{Method: x.Request.Method, Path: x.Request.Path, Body: string(x.Request.Body)},
			Response: msg{Status: x.Response.Status, Body: string(x.Response.Body)},
		})
	}
	data, err := yaml.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
