package wire

import (
	"net/http"
	"reflect"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
)

// TestAgentsReadsProductTokens: the clients and frameworks of the headers
// real SDKs send, comments and anything that is not a product token left out.
func TestAgentsReadsProductTokens(t *testing.T) {
	h := http.Header{}
	h.Set("X-Goog-Api-Client", "google-adk/1.7.0 gl-go/1.26.8 google-genai-sdk/1.77.0 gl-go/go1.26.8")
	h.Set("User-Agent", "Mozilla/5.0 (X11; Linux x86_64; host=build-17.corp) langchain-google-genai/2.1.0 key=AIzaSECRET ai-sdk/google/2.0.0")
	clients, frameworks := Agents(h)
	wantClients := []string{"gl-go/1.26.8", "google-genai-sdk/1.77.0", "gl-go/go1.26.8", "Mozilla/5.0"}
	wantFrameworks := []string{"google-adk/1.7.0", "langchain-google-genai/2.1.0", "ai-sdk/google/2.0.0"}
	if !reflect.DeepEqual(clients, wantClients) || !reflect.DeepEqual(frameworks, wantFrameworks) {
		t.Fatalf("clients %q frameworks %q, want %q and %q", clients, frameworks, wantClients, wantFrameworks)
	}
}

// TestProvenanceReadsModelsAskedAndAnswered: the model of each call's path
// against the modelVersion its answer named; tool exchanges are not clients.
func TestProvenanceReadsModelsAskedAndAnswered(t *testing.T) {
	call := func(model, answered, ua string) *cassettes.Exchange {
		return &cassettes.Exchange{
			Request:  cassettes.Request{Method: "POST", Path: "/v1beta/models/" + model + ":generateContent", Header: http.Header{"User-Agent": {ua}}, Body: []byte(`{"contents":[]}`)},
			Response: cassettes.Response{Status: 200, Body: []byte(`{"candidates":[{"content":{"parts":[{"text":"hi"}]}}],"modelVersion":"` + answered + `"}`)},
		}
	}
	tool := &cassettes.Exchange{Request: cassettes.Request{Scheme: "http", Host: "tools.test", Method: "GET", Path: "/x", Header: http.Header{"User-Agent": {"python-requests/2.32"}}}, Response: cassettes.Response{Status: 200}}
	p := Provenance([]*cassettes.Exchange{call("gemini-flash-latest", "gemini-2.5-flash-001", "a/1"), tool,
		call("gemini-flash-latest", "gemini-2.5-flash-002", "a/1"), call("gemini-pro", "", "b/2")})
	want := map[string][]string{"gemini-flash-latest": {"gemini-2.5-flash-001", "gemini-2.5-flash-002"}, "gemini-pro": {}}
	if !reflect.DeepEqual(p.Models, want) || !reflect.DeepEqual(p.Clients, []string{"a/1", "b/2"}) {
		t.Fatalf("models %v clients %q", p.Models, p.Clients)
	}
}
