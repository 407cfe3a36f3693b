package conformance

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/matcher"
	"gopkg.in/yaml.v3"
)

// withoutDropped is an original recordings file less what the round trip
// documents as not kept: config.http_options, config.labels,
// live_connect_config and ADK's tool call ids.
func withoutDropped(t *testing.T, data []byte) any {
	t.Helper()
	var v map[string]any
	if err := yaml.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	for _, r := range v["recordings"].([]any) {
		rec := r.(map[string]any)
		if llm, ok := rec["llm_recording"].(map[string]any); ok {
			req := llm["llm_request"].(map[string]any)
			delete(req, "live_connect_config")
			if cfg, ok := req["config"].(map[string]any); ok {
				delete(cfg, "http_options")
				delete(cfg, "labels")
			}
		}
		if tool, ok := rec["tool_recording"].(map[string]any); ok {
			delete(tool["tool_call"].(map[string]any), "id")
			delete(tool["tool_response"].(map[string]any), "id")
		}
	}
	return v
}

func canonicalOf(t *testing.T, v any) string {
	t.Helper()
	b, err := yaml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var back any
	if err := yaml.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	j, err := json.Marshal(back)
	if err != nil {
		t.Fatal(err)
	}
	parsed, ok := matcher.ParseJSON(j)
	if !ok {
		t.Fatalf("not JSON: %s", j)
	}
	return string(matcher.AppendCanonical(nil, parsed))
}

// TestExportRoundTrip imports every case, writes and reads its cassette,
// exports it, and finds the original recordings again, less what the
// mapping documents as dropped.
func TestExportRoundTrip(t *testing.T) {
	_, cases := corpusCases(t)
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			cas, problems, err := Import(c)
			if err != nil || len(problems) > 0 {
				t.Fatal(err, problems)
			}
			data, err := cassettes.Marshal(cas)
			if err != nil {
				t.Fatal(err)
			}
			loaded, err := cassettes.Unmarshal("c.yaml", data)
			if err != nil {
				t.Fatal(err)
			}
			out, problems, err := Export(loaded)
			if err != nil || len(problems) > 0 {
				t.Fatal(err, problems)
			}
			if _, err := ParseRecordings("exported.yaml", out); err != nil {
				t.Fatalf("the export does not read back: %v", err)
			}
			orig, err := os.ReadFile(filepath.Join(c.Dir, c.Recordings))
			if err != nil {
				t.Fatal(err)
			}
			var exported any
			if err := yaml.Unmarshal(out, &exported); err != nil {
				t.Fatal(err)
			}
			want, got := canonicalOf(t, withoutDropped(t, orig)), canonicalOf(t, exported)
			if want != got {
				wv, _ := matcher.ParseJSON([]byte(want))
				gv, _ := matcher.ParseJSON([]byte(got))
				t.Fatalf("round trip differs:%s", matcher.FormatDiffs(matcher.DiffJSON("", wv, gv), 10))
			}
		})
	}
}

func TestExportRefusesWhatItCannotMap(t *testing.T) {
	if _, _, err := Export(&cassettes.Cassette{Name: "empty"}); err == nil || !strings.Contains(err.Error(), "no model call") {
		t.Errorf("empty cassette: %v", err)
	}
	x := func(session int, body string) *cassettes.Exchange {
		return &cassettes.Exchange{
			Request:  cassettes.Request{Method: "POST", Path: "/v1beta/models/m:generateContent", Body: []byte(body)},
			Response: cassettes.Response{Status: 200, Body: []byte(`{"candidates":[{"content":{"role":"model","parts":[{"text":"ok"}]}}]}`)},
			Place:    &cassettes.Place{Session: session, Invocation: 1, Agent: "a"},
		}
	}
	two := &cassettes.Cassette{Name: "two", Exchanges: []*cassettes.Exchange{x(1, `{"contents":[]}`), x(2, `{"contents":[]}`)}}
	if _, _, err := Export(two); err == nil || !strings.Contains(err.Error(), "holds 2 sessions") {
		t.Errorf("two sessions: %v", err)
	}
	odd := &cassettes.Cassette{Name: "odd", Exchanges: []*cassettes.Exchange{x(1, `{"contents":[],"cachedContentz":"x"}`), x(1, `{"contents":[]}`)}}
	out, problems, err := Export(odd)
	if err != nil || len(problems) != 1 || !strings.Contains(problems[0].String(), `request field "cachedContentz" has no place in ADK's LlmRequest`) {
		t.Fatalf("err %v, problems %v", err, problems)
	}
	if r, err := ParseRecordings("x.yaml", out); err != nil || len(r.Entries) != 1 {
		t.Errorf("the convertible call: %v %v", r, err)
	}
}

// TestExportPairsParallelCallsInOrder: two calls of one tool in one answer
// get their own results, matched by order (or id, when the wire has one).
func TestExportPairsParallelCallsInOrder(t *testing.T) {
	place := &cassettes.Place{Session: 1, Invocation: 1, Agent: "a"}
	first := &cassettes.Exchange{
		Request: cassettes.Request{Method: "POST", Path: "/v1beta/models/m:generateContent",
			Body: []byte(`{"contents":[{"role":"user","parts":[{"text":"Weather in Paris and Rome?"}]}]}`)},
		Response: cassettes.Response{Status: 200, Body: []byte(`{"candidates":[{"content":{"role":"model","parts":[` +
			`{"functionCall":{"name":"get_weather","args":{"city":"Paris"}}},{"functionCall":{"name":"get_weather","args":{"city":"Rome"}}}]}}]}`)},
		Place: place,
	}
	second := &cassettes.Exchange{
		Request: cassettes.Request{Method: "POST", Path: "/v1beta/models/m:generateContent",
			Body: []byte(`{"contents":[{"role":"user","parts":[{"text":"Weather in Paris and Rome?"}]},` +
				`{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris"}}},{"functionCall":{"name":"get_weather","args":{"city":"Rome"}}}]},` +
				`{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":{"temp_c":18}}},{"functionResponse":{"name":"get_weather","response":{"temp_c":24}}}]}]}`)},
		Response: cassettes.Response{Status: 200, Body: []byte(`{"candidates":[{"content":{"role":"model","parts":[{"text":"18 and 24."}]}}]}`)},
		Place:    place,
	}
	out, problems, err := Export(&cassettes.Cassette{Name: "weather", Exchanges: []*cassettes.Exchange{first, second}})
	if err != nil || len(problems) > 0 {
		t.Fatal(err, problems)
	}
	recs, err := ParseRecordings("x.yaml", out)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range recs.Entries {
		if r.Tool != nil {
			got = append(got, fmt.Sprint(r.Tool.Call.Args["city"], "=", r.Tool.Response.Response["temp_c"]))
		}
	}
	if strings.Join(got, " ") != "Paris=18 Rome=24" {
		t.Errorf("tool recordings %v, want Paris=18 Rome=24", got)
	}
}
