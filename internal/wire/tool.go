// HTTP tool exchanges: requests an agent's tools made to other hosts,
// recorded through the forward proxy.

package wire

import (
	"encoding/json"
	"net/url"

	"github.com/adkproxy/adkproxy/cassettes"
)

type httpTool struct{}

func (httpTool) Name() string { return "http" }

// Recognise: a request with a host of its own (see cassettes.IsTool).
func (httpTool) Recognise(req *cassettes.Request) (Call, bool) {
	if req.Host == "" {
		return Call{}, false
	}
	return Call{Dialect: httpTool{}, Kind: Tool, Method: req.Method}, true
}

// Step: a tool exchange is no model call; it is read as Gemini's shape,
// as every exchange no dialect calls a model call is (see StepOf).
func (httpTool) Step(x *cassettes.Exchange) Step { return gemini{}.Step(x) }

func (httpTool) Request(*cassettes.Request) (Request, bool) { return Request{}, false }

// Tool reads an HTTP tool call: named METHOD host/path, its arguments the
// JSON body, or the query as a JSON object of lists when there is no
// body, its result the response body and its status the HTTP status.
func (httpTool) Tool(x *cassettes.Exchange) (ToolExchange, bool) {
	c := cassettes.HTTPCallOf(x)
	t := ToolExchange{Name: c.Method + " " + c.Host + c.Path, Arguments: x.Request.Body, Status: c.Status}
	if len(t.Arguments) == 0 && c.Query != "" {
		if q, err := url.ParseQuery(c.Query); err == nil {
			t.Arguments, _ = json.Marshal(q)
		}
	}
	if x.Response.Streamed() {
		for _, e := range x.Response.Events {
			t.Result = append(t.Result, e.Data...)
		}
	} else {
		t.Result = x.Response.Body
	}
	return t, true
}

func (httpTool) Matching() *Matching { return &httpToolMatching }

var httpToolMatching = Matching{OfTools: true}
