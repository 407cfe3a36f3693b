// Tool exchanges in the run view: each under the step whose function call
// its tool was serving.

package runview

import (
	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/wire"
)

// HTTPCall is one request a tool made to another host, as `adkproxy ls`
// shows it: `tool http GET weather.example.com/v1/current?city=Paris → 200`,
// or, for an MCP server, `tool mcp weather tools/call get_weather {"city":"Paris"} → ok`.
type HTTPCall struct {
	Method string `json:"method"`
	Scheme string `json:"scheme"`
	Host   string `json:"host"`
	Path   string `json:"path"`
	Query  string `json:"query"`
	Status int    `json:"status"`

	// MCP is the exchange read as MCP (server, method, tool, arguments,
	// result), when it is one: a stdio server relayed by adkproxy mcp, or
	// JSON-RPC over HTTP.
	MCP *wire.MCPCall `json:"mcp,omitempty"`

	// Exchange is what the call was read from (its latency, its bodies).
	Exchange *cassettes.Exchange `json:"-"`
}

func httpCallOf(x *cassettes.Exchange) HTTPCall {
	c := cassettes.HTTPCallOf(x)
	h := HTTPCall{Method: c.Method, Scheme: c.Scheme, Host: c.Host, Path: c.Path, Query: c.Query, Status: c.Status, Exchange: x}
	if m, ok := wire.MCPOf(x); ok {
		h.MCP = &m
	}
	return h
}

// Kind is the dialect the table names after "tool": mcp or http.
func (c HTTPCall) Kind() string {
	if c.MCP != nil {
		return wire.DialectMCP
	}
	return wire.DialectHTTP
}

// String is the call as the table shows it, after "tool " and its Kind:
// `GET weather.example.com/v1/current?city=Paris → 200`, or for MCP
// `weather tools/call get_weather {"city":"Paris"} → ok`.
func (c HTTPCall) String() string {
	if c.MCP != nil {
		return c.MCP.String()
	}
	return cassettes.HTTPCall{Method: c.Method, Scheme: c.Scheme, Host: c.Host, Path: c.Path, Query: c.Query, Status: c.Status}.String()
}

// fileHTTPCalls puts each tool exchange under the latest step with its
// step number and agent (a retried step's calls go to the retry that
// answered), or under the invocation's last step when none has them.
func fileHTTPCalls(steps []Step, calls []*cassettes.Exchange) {
	if len(steps) == 0 {
		return
	}
	for _, x := range calls {
		at := len(steps) - 1
		for i := len(steps) - 1; i >= 0; i-- {
			if steps[i].Step == x.Place.Step && steps[i].Agent == x.Place.Agent {
				at = i
				break
			}
		}
		steps[at].HTTPCalls = append(steps[at].HTTPCalls, httpCallOf(x))
	}
}

// otherOf is a request outside the sessions; a tool exchange's path names
// its scheme and host too.
func otherOf(x *cassettes.Exchange) Other {
	o := Other{Method: x.Request.Method, Path: x.Request.Path, Status: x.Response.Status}
	if x.IsTool() {
		o.Path = x.Request.Scheme + "://" + x.Request.Host + x.Request.Path
	}
	return o
}
