// Tool exchanges: requests an agent's tools made to other hosts, recorded
// through the forward proxy beside the model calls and filed under the
// step whose function call they served.

package cassettes

import (
	"fmt"
	"net"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// IsTool reports whether x is a tool exchange: one with a host of its own,
// rather than a call to the Gemini API.
func (x *Exchange) IsTool() bool { return x.Request.Host != "" }

// HTTPCall is a tool exchange as a step's trajectory and the run views
// show it: `GET weather.example.com/v1/current?city=Paris → 200`.
type HTTPCall struct {
	Method string
	Scheme string
	Host   string
	Path   string
	Query  string
	Status int
}

// HTTPCallOf summarises a tool exchange.
func HTTPCallOf(x *Exchange) HTTPCall {
	return HTTPCall{Method: x.Request.Method, Scheme: x.Request.Scheme, Host: x.Request.Host,
		Path: x.Request.Path, Query: x.Request.Query, Status: x.Response.Status}
}

// Target is host, path and query, as `weather.example.com/v1/current?city=Paris`;
// a plain-HTTP call keeps its scheme in front.
func (c HTTPCall) Target() string {
	s := c.Host + c.Path
	if c.Query != "" {
		s += "?" + c.Query
	}
	if c.Scheme != "" && c.Scheme != "https" {
		s = c.Scheme + "://" + s
	}
	return s
}

// String is the call in one line, for listings.
func (c HTTPCall) String() string {
	return fmt.Sprintf("%s %s → %d", c.Method, c.Target(), c.Status)
}

// ToolHost normalises a request's host for storing and matching: lower
// case, without the default port of its scheme.
func ToolHost(scheme, hostport string) string {
	hostport = strings.ToLower(hostport)
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return hostport
	}
	if port == defaultPort(scheme) {
		if strings.Contains(host, ":") {
			return "[" + host + "]" // an IPv6 literal keeps its brackets
		}
		return host
	}
	return hostport
}

func defaultPort(scheme string) string {
	switch scheme {
	case "https":
		return strconv.Itoa(443)
	case "http":
		return strconv.Itoa(80)
	}
	return ""
}

// checkTool refuses a tool request Unmarshal would not read back.
func checkTool(r *Request) error {
	switch {
	case r.Host == "" && r.Scheme == "":
		return nil
	case r.Scheme != "http" && r.Scheme != "https" && r.Scheme != "stdio":
		return fmt.Errorf("the tool request's scheme %q is not http, https or stdio (an MCP server adkproxy mcp relayed)", r.Scheme)
	case r.Host == "" || strings.ContainsFunc(r.Host, func(c rune) bool { return c <= ' ' || c == 0x7f || strings.ContainsRune("/@?#", c) }):
		return fmt.Errorf("the tool request's host %q is not a host[:port]", r.Host)
	}
	return nil
}

// toolSteps files tool exchanges under the step nodes Marshal writes: each
// under the latest step with its place, as `http_calls` beside the step's
// own request and response, and listed in that step's trajectory.
type toolSteps struct {
	nodes   map[Place]*yaml.Node // latest step node of each place
	pending []pendingTool        // exchanges whose step had not been written yet
}

type pendingTool struct {
	x    *Exchange
	node *yaml.Node
}

// placeKey drops the invocation's texts: one step is one session,
// invocation, step and agent.
func placeKey(p *Place) Place {
	return Place{Session: p.Session, Invocation: p.Invocation, Step: p.Step, Agent: p.Agent}
}

func (t *toolSteps) step(p *Place, node *yaml.Node) {
	if t.nodes == nil {
		t.nodes = map[Place]*yaml.Node{}
	}
	t.nodes[placeKey(p)] = node
}

func (t *toolSteps) file(x *Exchange, n *yaml.Node) {
	if step := t.nodes[placeKey(x.Place)]; step != nil {
		addHTTPCall(step, x, n)
		return
	}
	t.pending = append(t.pending, pendingTool{x, n})
}

// attach files the exchanges that came before their step, and returns
// those whose step is not in the cassette at all: they are kept under
// other, without their place, rather than lost.
func (t *toolSteps) attach() []*yaml.Node {
	var orphans []*yaml.Node
	for _, p := range t.pending {
		if step := t.nodes[placeKey(p.x.Place)]; step != nil {
			addHTTPCall(step, p.x, p.node)
			continue
		}
		orphans = append(orphans, p.node)
	}
	return orphans
}

// addHTTPCall appends a tool exchange's node to a step's http_calls and
// its summary to the step's trajectory.
func addHTTPCall(step *yaml.Node, x *Exchange, n *yaml.Node) {
	list := mappingValue(step, "http_calls")
	if list == nil {
		list = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		step.Content = append(step.Content, strNode("http_calls"), list)
	}
	list.Content = append(list.Content, n)
	if traj := mappingValue(step, "trajectory"); traj != nil {
		calls := mappingValue(traj, "http_calls")
		if calls == nil {
			calls = flowList()
			traj.Style = 0
			traj.Content = append(traj.Content, strNode("http_calls"), calls)
		}
		calls.Content = append(calls.Content, anyNode(HTTPCallOf(x).String()))
	}
}

func mappingValue(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// stepFields are the keys of a step in a version 2 file.
var stepFields = []string{"request", "response", "step", "agent", "trajectory", "confirmations", "http_calls"}

// httpCalls reads a step's tool exchanges; they take the step's place.
func (r reader) httpCalls(n *yaml.Node, where string, p *Place) ([]*Exchange, error) {
	if n == nil {
		return nil, nil
	}
	items, err := r.list(n, where+" http_calls")
	if err != nil {
		return nil, err
	}
	out := make([]*Exchange, 0, len(items))
	for i, item := range items {
		what := fmt.Sprintf("%s http call %d", where, i+1)
		x, err := r.exchange(item, what, "request", "response")
		if err != nil {
			return nil, err
		}
		if !x.IsTool() {
			return nil, r.errorf(item, "%s needs the request's scheme and host (it is a call a tool made to another host)", what)
		}
		place := *p
		x.Place = &place
		out = append(out, x)
	}
	return out, nil
}
