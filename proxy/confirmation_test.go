package proxy_test

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/proxyopt"
	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/internal/wire"
	"github.com/adkproxy/adkproxy/proxy"
)

// TestReportedConfirmationIsFiledOnTheStepCarryingTheToolResult: an answer
// posted to the control API waits for the cassette's model call whose
// request carries its tool's result and is saved on that step, payload and
// shape included; an answer for another cassette or a tool whose result
// never came is not; replay verifies a reported answer against it.
func TestReportedConfirmationIsFiledOnTheStepCarryingTheToolResult(t *testing.T) {
	dir := testutil.OutDir(t)
	up := httptest.NewServer(&fakegemini.Handler{})
	defer up.Close()
	rec := startProxy(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: mustURL(t, up.URL)})
	for _, body := range []string{
		`{"tool": "get_weather", "args": {"city": "Paris"}, "confirmed": true, "payload": {"units": "C", "days": 3}, "hint": "Check the weather?", "shape": "json-string"}`,
		`{"tool": "book_room", "confirmed": false}`, // never called: logged, not filed
	} {
		if code, resp := control(t, http.MethodPost, rec.URL+proxyopt.ControlConfirmation, "", body); code != http.StatusOK || !strings.Contains(resp, `"recorded": true`) {
			t.Fatalf("POST %s: %d %s", body, code, resp)
		}
	}
	req, _ := http.NewRequest(http.MethodPost, rec.URL+proxyopt.ControlConfirmation, strings.NewReader(`{"tool": "get_weather", "confirmed": false}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(proxy.HeaderCassette, "elsewhere")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("POST for another cassette: %v %v", resp, err)
	}
	// Bad bodies are refused naming what is wrong, and change nothing.
	for body, want := range map[string]string{
		`{"tool": "get_weather"}`:                            "has no",
		`{"confirmed": true}`:                                "names no tool",
		`{"tool": "t", "confirmed": true, "shape": "xml"}`:   "is neither object nor json-string",
		`{"tool": "t", "confirmed": "yes"}`:                  "confirmed",
		`{"tool": "t", "confirmed": true, "colour": 1}`:      "unknown field",
		`{"tool": "t", "confirmed": true} {}`:                "more after the object",
		`{"tool": "t", "confirmed": true, "payload": 1e999}`: "payload",
		``: "EOF",
	} {
		if code, resp := control(t, http.MethodPost, rec.URL+proxyopt.ControlConfirmation, "", body); code != http.StatusBadRequest || !strings.Contains(resp, want) {
			t.Errorf("POST %q: %d %s, want 400 naming %q", body, code, resp, want)
		}
	}
	if code, _ := control(t, http.MethodGet, rec.URL+proxyopt.ControlConfirmation, "", ""); code != http.StatusMethodNotAllowed {
		t.Errorf("GET confirmation: %d, want 405", code)
	}
	if _, err := (weatherAgent{}).run(t, rec.URL); err != nil {
		t.Fatal(err)
	}
	rec.stop(t)

	c, err := cassettes.Load(filepath.Join(dir, cassettes.DefaultName+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var filed []int
	for i, x := range c.Exchanges {
		if len(x.Confirmations) > 0 {
			filed = append(filed, i)
		}
	}
	want := []cassettes.Confirmation{{Tool: "get_weather", Args: map[string]any{"city": "Paris"}, Confirmed: true,
		Payload: map[string]any{"units": "C", "days": 3.0}, Hint: "Check the weather?", Shape: "json-string"}}
	if len(filed) != 1 || !reflect.DeepEqual(c.Exchanges[filed[0]].Confirmations, want) {
		t.Fatalf("confirmations filed on exchanges %v: %#v", filed, c.Exchanges)
	}
	if results := wire.StepOf(c.Exchanges[filed[0]]).ToolResults; len(results) != 1 || results[0].Name != "get_weather" {
		t.Errorf("the answer is on a step whose request carries %+v, want get_weather's result", results)
	}

	// Replay verifies a reported answer against the recorded one: the same
	// decision, args and payload pass whatever the shape and hint; another
	// decision or payload is a difference, as a request field's would be.
	replay := func(answer string) (error, error) {
		rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir})
		if code, resp := control(t, http.MethodPost, rep.URL+proxyopt.ControlConfirmation, "", answer); code != http.StatusOK || !strings.Contains(resp, `"recorded": false`) {
			t.Errorf("POST in replay: %d %s", code, resp)
		}
		_, runErr := (weatherAgent{}).run(t, rep.URL)
		rep.stop(t)
		return runErr, rep.Failure()
	}
	if runErr, failure := replay(`{"tool": "get_weather", "args": {"city": "Paris"}, "confirmed": true, "payload": {"days": 3.0, "units": "C"}, "shape": "object"}`); runErr != nil || failure != nil {
		t.Errorf("replay with the recorded answer in the other shape: %v; %v", runErr, failure)
	}
	runErr, failure := replay(`{"tool": "get_weather", "args": {"city": "Paris"}, "confirmed": false, "payload": {"days": 4, "units": "C"}}`)
	if runErr == nil || failure == nil {
		t.Fatalf("replay with another answer passed: %v; %v", runErr, failure)
	}
	msg := apiMessage(t, runErr)
	for _, want := range []string{"the reported tool confirmation differs from the recording", "confirmation(get_weather).decision: recorded approved, got refused", "confirmation(get_weather).payload.days: recorded 3, got 4"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the replay's answer lacks %q:\n%s", want, msg)
		}
	}
}
