// Tool exchanges in the model: each under the step whose function call its
// tool was serving.

package recorded

import (
	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/wire"
)

// httpCallOf reads a tool exchange; streamed are the answers of HTTP+SSE
// POSTs from their streams.
func httpCallOf(x *cassettes.Exchange, streamed map[*cassettes.Exchange]wire.MCPCall) HTTPCall {
	c := HTTPCall{HTTPCall: cassettes.HTTPCallOf(x), Latency: x.Response.Latency, Exchange: x}
	if m, ok := streamed[x]; ok {
		c.MCP = &m
	} else if m, ok := wire.MCPOf(x); ok {
		c.MCP = &m
	} else if a, ok := wire.A2AOf(x); ok {
		c.A2A = &a
	}
	return c
}

// Kind is the dialect a listing names after "tool": mcp, a2a or http.
func (c HTTPCall) Kind() string {
	switch {
	case c.MCP != nil:
		return wire.DialectMCP
	case c.A2A != nil:
		return wire.DialectA2A
	}
	return wire.DialectHTTP
}

// String is the call in one line, after "tool " and its Kind:
// `GET weather.example.com/v1/current?city=Paris → 200`, or for MCP
// `weather tools/call get_weather {"city":"Paris"} → ok`, or for A2A
// `travel_agent message/send "Book a trip" → "Booked."`.
func (c HTTPCall) String() string {
	switch {
	case c.MCP != nil:
		return c.MCP.String()
	case c.A2A != nil:
		return c.A2A.String()
	}
	return c.HTTPCall.String()
}

// fileHTTPCalls reads the invocation's tool exchanges, in file order, and
// puts each under the latest step with its step number and agent (a
// retried step's calls go to the retry that answered), or under the
// invocation's last step when none has them.
func fileHTTPCalls(inv *Invocation, calls []*cassettes.Exchange, streamed map[*cassettes.Exchange]wire.MCPCall) {
	if len(calls) == 0 {
		return
	}
	inv.HTTPCalls = make([]HTTPCall, len(calls))
	steps := inv.Steps
	for n, x := range calls {
		inv.HTTPCalls[n] = httpCallOf(x, streamed)
		if len(steps) == 0 {
			continue
		}
		at := len(steps) - 1
		for i := len(steps) - 1; i >= 0; i-- {
			if steps[i].Number == x.Place.Step && steps[i].Agent == x.Place.Agent {
				at = i
				break
			}
		}
		steps[at].HTTPCalls = append(steps[at].HTTPCalls, &inv.HTTPCalls[n])
	}
}
