// Record: a scenario recorded in-process, for package tests of what reads
// recorded runs.

package agentscenario

import (
	"context"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"testing"

	"google.golang.org/genai"

	"github.com/adkproxy/adkproxy/adkproxytest"
	"github.com/adkproxy/adkproxy/proxy"
)

// Record plays sc with the genai client through an adkproxy recording from
// ScriptedModel, into the cassette "default" of a new folder under
// t.TempDir() (named name), and returns the folder. (HTTPTools need the
// forward proxy of the adkproxy binary; the cmd suite records those.)
func Record(t testing.TB, name string, sc *Scenario) string {
	t.Helper()
	up := httptest.NewServer(ScriptedModel(t, sc))
	defer up.Close()
	upstream, _ := url.Parse(up.URL)
	dir := filepath.Join(t.TempDir(), name)
	p, err := adkproxytest.New(dir, "default", adkproxytest.Record(true),
		adkproxytest.Configure(func(c *proxy.Config) { c.Upstream = upstream }))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	client, err := genai.NewClient(ctx, p.ClientConfig())
	if err != nil {
		p.Close()
		t.Fatal(err)
	}
	playErr := Play(ctx, client, sc)
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if playErr != nil {
		t.Fatal(playErr)
	}
	return dir
}
