package proxy_test

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/matcher"
	"github.com/adkproxy/adkproxy/proxy"
)

// toolHistory is a request whose history holds two get_weather calls and a
// get_time call, then their three responses.
func toolHistory(romeCity, parisTime string) string {
	call := func(name, city string) string {
		return `{"functionCall":{"name":"` + name + `","args":{"city":"` + city + `"}}}`
	}
	answer := func(name, field, value string) string {
		return `{"functionResponse":{"name":"` + name + `","response":{"` + field + `":` + value + `}}}`
	}
	return `{"contents":[{"role":"user","parts":[{"text":"Weather in Paris and Rome, and the time in Paris?"}]},` +
		`{"role":"model","parts":[` + call("get_weather", "Paris") + `,` + call("get_weather", romeCity) + `,` + call("get_time", "Paris") + `]},` +
		`{"role":"user","parts":[` + answer("get_weather", "temp_c", "18") + `,` + answer("get_weather", "temp_c", "21") + `,` +
		answer("get_time", "time", `"`+parisTime+`"`) + `]}]}`
}

// A difference inside a function call or response is addressed by the
// function's name (NAME#K when the content holds several calls of it), and
// --ignore takes that path as well as the index form.
func TestCallsAndResponsesAddressedByName(t *testing.T) {
	up := httptest.NewServer(&fakegemini.Handler{})
	defer up.Close()
	dir := testutil.OutDir(t)
	rec := startProxy(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: mustURL(t, up.URL)})
	if resp := post(t, rec.URL, generatePath, nil, toolHistory("Rome", "10:00")); resp.StatusCode != 200 {
		t.Fatalf("record: %s", body(t, resp))
	}
	rec.stop(t)

	rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir})
	resp := post(t, rep.URL, generatePath, nil, toolHistory("Roma", "11:00"))
	raw := body(t, resp)
	var e struct {
		Error struct{ Message string }
	}
	if resp.StatusCode != 400 || json.Unmarshal([]byte(raw), &e) != nil {
		t.Fatalf("status %d, body %s; want a 400 naming the differences", resp.StatusCode, raw)
	}
	for _, want := range []string{
		`contents[1].parts[get_weather#2].functionCall.args.city: recorded "Rome", got "Roma"`,
		`contents[2].parts[get_time].functionResponse.response.time: recorded "10:00", got "11:00"`,
	} {
		if !strings.Contains(e.Error.Message, want) {
			t.Errorf("message lacks %q:\n%s", want, e.Error.Message)
		}
	}
	rep.stop(t)

	for _, ignore := range [][]string{
		{"contents[*].parts[get_weather#2].functionCall.args", "contents[*].parts[get_time].functionResponse.response"},
		{"contents[1].parts[1].functionCall.args", "contents[2].parts[2].functionResponse.response"},
	} {
		m, err := matcher.New(ignore...)
		if err != nil {
			t.Fatal(err)
		}
		rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir, Matcher: m})
		if resp := post(t, rep.URL, generatePath, nil, toolHistory("Roma", "11:00")); resp.StatusCode != 200 {
			t.Errorf("--ignore %v: %s", ignore, body(t, resp))
		}
		rep.stop(t)
	}
	// Ignoring the first get_weather call's args leaves the second's difference.
	m, err := matcher.New("contents[*].parts[get_weather#1].functionCall.args")
	if err != nil {
		t.Fatal(err)
	}
	rep = startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir, Matcher: m})
	if resp := post(t, rep.URL, generatePath, nil, toolHistory("Roma", "10:00")); resp.StatusCode != 400 {
		t.Errorf("ignoring get_weather#1 hid get_weather#2's change: %d %s", resp.StatusCode, body(t, resp))
	}
	rep.stop(t)
}
