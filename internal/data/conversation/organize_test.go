package conversation_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/data/conversation"
	"github.com/adkproxy/adkproxy/internal/testing/httprr"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/matcher"
)

type label struct {
	Exchange   int    `json:"exchange"`
	Session    int    `json:"session"`
	Invocation int    `json:"invocation"`
	UserText   string `json:"user_text"`
	Agent      string `json:"agent"`
	Why        string `json:"why"`
}

// TestOrganizerMatchesHandLabels replays every delegation recording through
// the organizer and compares its grouping with labels written by a person
// who read the conversations (testdata/delegation-labels.json).
func TestOrganizerMatchesHandLabels(t *testing.T) {
	traffic := testutil.SharedDir(t, "fixtures", "gemini-traffic")
	raw, err := os.ReadFile(filepath.Join("testdata", "delegation-labels.json"))
	if err != nil {
		t.Fatal(err)
	}
	var labels struct {
		Files map[string][]label `json:"files"`
	}
	if err := json.Unmarshal(raw, &labels); err != nil {
		t.Fatal(err)
	}
	names := slices.Sorted(maps.Keys(labels.Files))
	if len(names) != 10 {
		t.Fatalf("labels cover %d files, want the 10 delegation recordings", len(names))
	}
	total := 0
	for _, name := range names {
		want := labels.Files[name]
		t.Run(name, func(t *testing.T) {
			exchanges, err := httprr.ParseFile(filepath.Join(traffic, name))
			if err != nil {
				t.Fatal(err)
			}
			if len(exchanges) != len(want) {
				t.Fatalf("%d exchanges, %d labels", len(exchanges), len(want))
			}
			org := conversation.NewOrganizer()
			for i, x := range exchanges {
				call, ok := analyze(x.Request.URL.Path, x.Request.Body)
				if !ok {
					t.Fatalf("exchange %d is not a model call", i)
				}
				place, token := org.Place(call, "")
				org.Calls(token, responseCalls(x.Response.Body))
				l := want[i]
				if place.Session != l.Session || place.Invocation != l.Invocation || place.Agent != l.Agent || place.User != l.UserText {
					t.Errorf("exchange %d: got session %d invocation %d agent %q user %q\n  want session %d invocation %d agent %q user %q (%s)",
						i, place.Session, place.Invocation, place.Agent, place.User, l.Session, l.Invocation, l.Agent, l.UserText, l.Why)
				}
				total++
			}
		})
	}
	t.Logf("%d exchanges grouped as labelled", total)
}

// responseCalls reads the calls from a JSON body or from every SSE event.
func responseCalls(body []byte) []conversation.FunctionCall {
	if !bytes.HasPrefix(body, []byte("data: ")) {
		return conversation.ResponseCalls(body)
	}
	var out []conversation.FunctionCall
	for _, line := range bytes.Split(body, []byte("\n")) {
		if p, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte("data: ")); ok {
			out = append(out, conversation.ResponseCalls(p)...)
		}
	}
	return out
}

// TestSameWordsDifferentConversations: two sessions whose user turns say the
// same words but whose tool results differ stay apart; only another agent
// (a sub-agent reached by transfer) joins an invocation by its user text.
func TestSameWordsDifferentConversations(t *testing.T) {
	turn := func(history string) []byte {
		return []byte(`{"contents":[` + history + `],"tools":[{"functionDeclarations":[{"name":"get_weather"}]}]}`)
	}
	q1 := `{"role":"user","parts":[{"text":"weather in Paris?"}]}`
	call := `{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris"}}}]}`
	result := func(temp string) string {
		return `{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":{"temp_c":` + temp + `}}}]}`
	}
	answer := `{"role":"model","parts":[{"text":"ok"}]}`
	q2 := `{"role":"user","parts":[{"text":"and tomorrow?"}]}`
	org := conversation.NewOrganizer()
	place := func(body []byte) cassettesPlace {
		c, ok := analyze("/v1beta/models/m:generateContent", body)
		if !ok {
			t.Fatal("not a model call")
		}
		p, _ := org.Place(c, "")
		return cassettesPlace{p.Session, p.Invocation}
	}
	a0, b0 := place(turn(q1)), place(turn(q1))
	a2, b2 := place(turn(q1+","+call+","+result("15"))), place(turn(q1+","+call+","+result("30")))
	aNext := place(turn(q1 + "," + call + "," + result("15") + "," + answer + "," + q2))
	bNext := place(turn(q1 + "," + call + "," + result("30") + "," + answer + "," + q2))
	if a0.session == b0.session || aNext.session == bNext.session || aNext.invocation != 2 || bNext.invocation != 2 {
		t.Fatalf("sessions mixed: first turns %v %v, second turns %v %v", a0, b0, aNext, bNext)
	}
	if a2.session != a0.session && a2.session != b0.session || b2.session == a2.session {
		t.Fatalf("steps 2 %v %v", a2, b2)
	}
}

type cassettesPlace struct{ session, invocation int }

// TestRetryAfterAnErrorStaysInItsInvocation: a step whose response failed
// (a 429) frees its place, so the retry joins the same invocation.
func TestRetryAfterAnErrorStaysInItsInvocation(t *testing.T) {
	org := conversation.NewOrganizer()
	body := func(history string) *conversation.Call {
		c, _ := analyze("/v1beta/models/m:generateContent", []byte(`{"contents":[`+history+`]}`))
		return c
	}
	q1 := `{"role":"user","parts":[{"text":"plan a trip"}]}`
	q2 := q1 + `,{"role":"model","parts":[{"text":"where?"}]},{"role":"user","parts":[{"text":"Kyoto"}]}`
	org.Place(body(q1), "")
	first, token := org.Place(body(q2), "")
	org.Finish(token, &cassettes.Response{Status: 429})
	retry, _ := org.Place(body(q2), "")
	if retry.Session != first.Session || retry.Invocation != first.Invocation || retry.Invocation != 2 {
		t.Fatalf("first try %+v, retry %+v", first, retry)
	}
}

// TestOrganizeFreesAResetStep: a version 1 file whose step was cut short
// (status 200, connection reset while reading the body) is followed by its
// retry. The live proxy frees the slot of such a step, so the retry joins
// the same invocation; organizing the file afterwards must agree.
func TestOrganizeFreesAResetStep(t *testing.T) {
	body := []byte(`{"contents":[{"role":"user","parts":[{"text":"plan a trip"}]}]}`)
	x := func(end cassettes.End) *cassettes.Exchange {
		return &cassettes.Exchange{
			Request:  cassettes.Request{Method: "POST", Path: "/v1beta/models/m:generateContent", Body: body},
			Response: cassettes.Response{Status: 200, End: end, Body: []byte(`{"candidates":[`)},
		}
	}
	xs := []*cassettes.Exchange{x(cassettes.EndReset), x(cassettes.EndComplete)}
	conversation.Organize(matcher.Default(), xs)
	a, b := xs[0].Place, xs[1].Place
	if a == nil || b == nil || a.Session != b.Session || a.Invocation != b.Invocation || b.Step != 0 {
		t.Fatalf("cut-short step at %+v, its retry at %+v: want the same invocation", a, b)
	}
}

func analyze(path string, body []byte) (*conversation.Call, bool) {
	return conversation.Analyze(matcher.Default(), path, body)
}

// TestRestoredFailedStepIsFree: extending a cassette whose last step failed
// (a 429) places the retry where the live proxy would have: in the same
// invocation, not a new session.
func TestRestoredFailedStepIsFree(t *testing.T) {
	c, _ := analyze("/v1beta/models/m:generateContent", []byte(`{"contents":[{"role":"user","parts":[{"text":"plan a trip"}]}]}`))
	org := conversation.NewOrganizer()
	org.Restore(c, &cassettes.Exchange{
		Response: cassettes.Response{Status: 429, Body: []byte(`{"error":{"code":429}}`)},
		Place:    &cassettes.Place{Session: 1, Invocation: 1, User: "plan a trip", Agent: "agent"},
	})
	retry, _ := org.Place(c, "")
	if retry.Session != 1 || retry.Invocation != 1 || retry.Step != 0 || retry.Agent != "agent" {
		t.Fatalf("retry placed at %+v, want session 1 invocation 1 like the failed step", retry)
	}
}

// TestStepsAreNumberedOneAfterAnother: an invocation's steps are numbered
// 0, 1, 2 in the order they come, across agents; a retry after a failed
// step keeps its number, and a failure does not leave a gap.
func TestStepsAreNumberedOneAfterAnother(t *testing.T) {
	org := conversation.NewOrganizer()
	var got []int
	place := func(c *conversation.Call, status int) {
		p, token := org.Place(c, "")
		org.Finish(token, &cassettes.Response{Status: status})
		got = append(got, p.Step)
	}
	sub, _ := analyze("/v1beta/models/m:generateContent", []byte(`{"systemInstruction":{"parts":[{"text":"You are an agent. Your internal name is \"sub\"."}]},`+
		`"contents":[{"role":"user","parts":[{"text":"weather in Paris?"}]}]}`))
	place(weatherCall(t, "Paris", 0), 200)
	place(weatherCall(t, "Paris", 2), 429)
	place(weatherCall(t, "Paris", 2), 200) // the retry
	place(sub, 200)                        // a sub-agent joins the turn
	if want := []int{0, 1, 1, 2}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("steps %v, want %v", got, want)
	}
}
