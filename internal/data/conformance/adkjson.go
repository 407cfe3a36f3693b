// ADK's LlmRequest and LlmResponse as JSON (as ADK's telemetry writes them
// into span attributes) into a Gemini API exchange, by the same mapping as
// the corpus's recordings.

package conformance

import (
	"fmt"
	"net/http"

	"github.com/adkproxy/adkproxy/cassettes"
	"gopkg.in/yaml.v3"
)

// ExchangeFromJSON builds a generateContent exchange from an LlmRequest and
// an LlmResponse, each a JSON object; what names them in errors (a file and
// a span). The exchange has no Place.
func ExchangeFromJSON(what string, request, response []byte) (*cassettes.Exchange, error) {
	d := doc{file: what}
	req, err := jsonNode(request)
	if err != nil {
		return nil, fmt.Errorf("%s: llm_request: %v", what, err)
	}
	resp, err := jsonNode(response)
	if err != nil {
		return nil, fmt.Errorf("%s: llm_response: %v", what, err)
	}
	model, body, err := d.wireRequest(req, "llm_request")
	if err != nil {
		return nil, err
	}
	if model == "" {
		return nil, fmt.Errorf("%s: llm_request.model is empty", what)
	}
	out, err := d.wireResponse(resp, "llm_response")
	if err != nil {
		return nil, err
	}
	return &cassettes.Exchange{
		Request: cassettes.Request{Method: http.MethodPost, Path: "/v1beta/models/" + model + ":generateContent",
			Header: http.Header{"Content-Type": {"application/json"}}, Body: body},
		Response: cassettes.Response{Status: http.StatusOK,
			Header: http.Header{"Content-Type": {"application/json; charset=UTF-8"}}, Body: out},
	}, nil
}

// jsonNode reads a JSON object as a YAML node (JSON is YAML).
func jsonNode(data []byte) (*yaml.Node, error) {
	var n yaml.Node
	if err := yaml.Unmarshal(data, &n); err != nil {
		return nil, fmt.Errorf("not JSON: %v", err)
	}
	if n.Kind != yaml.DocumentNode || len(n.Content) != 1 || n.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("want a JSON object")
	}
	return n.Content[0], nil
}
