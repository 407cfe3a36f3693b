// The MCP dialect: JSON-RPC 2.0 messages between an agent's MCP client
// and a server, over stdio (relayed by adkproxy mcp: scheme "stdio", the
// server's name as host), Streamable HTTP or HTTP+SSE (a POST whose body
// is JSON-RPC; HTTP+SSE's answers come on a GET stream announcing the
// endpoint, MCPStreamEndpoint). A tools/call is a tool call of its step,
// named by its tool; the other methods (initialize, tools/list, resources/*,
// prompts/*, notifications/*) are the session's plumbing.

package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/adkproxy/adkproxy/cassettes"
)

// Dialects of tool traffic, as the run's views name them.
const (
	DialectHTTP = "http" // any other request to another host
	DialectMCP  = "mcp"
	DialectA2A  = "a2a"
)

type mcp struct{}

func (mcp) Name() string { return DialectMCP }

// Recognise: a stdio server's exchange (scheme stdio), or an HTTP request
// carrying Streamable HTTP's headers: Mcp-Session-Id or
// Mcp-Protocol-Version, or a POST that accepts both JSON and an event
// stream, as the transport requires of every client.
func (mcp) Recognise(req *cassettes.Request) (Call, bool) {
	if req.Host == "" {
		return Call{}, false
	}
	if req.Scheme == "stdio" || req.Header.Get("Mcp-Session-Id") != "" || req.Header.Get("Mcp-Protocol-Version") != "" {
		return Call{Dialect: mcp{}, Kind: Tool, Method: req.Method}, true
	}
	if accept := req.Header.Get("Accept"); req.Method == "POST" && strings.Contains(accept, "text/event-stream") && strings.Contains(accept, "application/json") {
		return Call{Dialect: mcp{}, Kind: Tool, Method: req.Method}, true
	}
	return Call{}, false
}

// IsMCPServerStream says whether a request opens Streamable HTTP's
// optional stream of server messages: a GET for an event stream on an
// MCP session (it names the session or the protocol version; the older
// HTTP+SSE transport's GET names neither). A server without one answers
// 405, and the client carries on without it.
func IsMCPServerStream(method string, h http.Header) bool {
	return method == http.MethodGet && strings.Contains(h.Get("Accept"), "text/event-stream") &&
		(h.Get("Mcp-Session-Id") != "" || h.Get("Mcp-Protocol-Version") != "")
}

func (mcp) Step(x *cassettes.Exchange) Step { return gemini{}.Step(x) }

func (mcp) Request(*cassettes.Request) (Request, bool) { return Request{}, false }

// Tool reads an MCP exchange: named by its label (server, method, tool),
// its arguments the tool's, its result the JSON-RPC result (or error),
// its status the HTTP status.
func (mcp) Tool(x *cassettes.Exchange) (ToolExchange, bool) {
	c, ok := MCPOf(x)
	if !ok {
		return httpTool{}.Tool(x)
	}
	t := ToolExchange{Name: c.Label(), Arguments: c.Args, Result: c.Result, Status: x.Response.Status}
	if c.Error != "" {
		t.Result, _ = json.Marshal(map[string]string{"error": c.Error})
	}
	return t, true
}

func (mcp) Matching() *Matching { return &Matching{} }

// MCPCall is one MCP exchange as the run's views show it: the server, the
// JSON-RPC method and, for tools/call, the tool and its arguments.
type MCPCall struct {
	Dialect string `json:"dialect"`
	// Server is the MCP server's name (stdio) or host and path (HTTP).
	Server string `json:"server"`
	// Method is the JSON-RPC method ("tools/call"); "" for an answer
	// read without its request.
	Method string `json:"method,omitempty"`
	// Name is the tool (tools/call), prompt (prompts/get) or resource URI
	// (resources/read) the method is about.
	Name string `json:"name,omitempty"`
	// Args are a tools/call's arguments (or a prompt's).
	Args json.RawMessage `json:"args,omitempty"`
	// ID is the JSON-RPC id as sent (its JSON text); "" for a notification.
	ID string `json:"id,omitempty"`
	// Result is the response's result, or Error its error's message;
	// IsError is a tools/call result's isError or a JSON-RPC error.
	Result  json.RawMessage `json:"result,omitempty"`
	Error   string          `json:"error,omitempty"`
	IsError bool            `json:"is_error,omitempty"`
}

// Label is the call in a few words: `MCP server weather tool get_weather`.
func (c MCPCall) Label() string {
	switch {
	case c.Dialect != DialectMCP:
		return c.Server
	case c.Method == "tools/call":
		return fmt.Sprintf("MCP server %s tool %s", c.Server, c.Name)
	case c.Name != "":
		return fmt.Sprintf("MCP server %s %s %s", c.Server, c.Method, c.Name)
	}
	return fmt.Sprintf("MCP server %s %s", c.Server, c.Method)
}

// String is the call in one line, for listings:
// `weather tools/call get_weather {"city":"Paris"} → ok`.
func (c MCPCall) String() string {
	s := c.Server + " " + c.Method
	if c.Name != "" {
		s += " " + c.Name
	}
	if len(c.Args) > 0 {
		s += " " + compactJSON(c.Args)
	}
	switch {
	case c.ID == "" && c.Result == nil && c.Error == "":
		return s // a notification: nothing answers it
	case c.Error != "":
		return s + " → error: " + c.Error
	case c.IsError:
		return s + " → tool error"
	}
	return s + " → ok"
}

// jsonrpc is the envelope of a JSON-RPC 2.0 message.
type jsonrpc struct {
	Version string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// IsMCP says whether a tool request is MCP: relayed from a stdio server,
// or a POST whose body is one JSON-RPC 2.0 request or notification with
// an MCP method (A2A's methods are A2A's).
func IsMCP(req *cassettes.Request) bool {
	if req.Scheme == "stdio" {
		return true
	}
	m, ok := readJSONRPC(req.Body)
	return ok && req.Method == "POST" && m.Method != "" && !isA2AMethod(m.Method)
}

// MCPRequestOf reads a tool request as MCP (from its body: a JSON-RPC
// request or notification); ok is false when it is not MCP.
func MCPRequestOf(req *cassettes.Request) (c MCPCall, ok bool) {
	if !IsMCP(req) {
		return MCPCall{}, false
	}
	c = MCPCall{Dialect: DialectMCP, Server: req.Host}
	if req.Scheme != "stdio" {
		c.Server = req.Host + req.Path
	}
	m, _ := readJSONRPC(req.Body)
	c.Method = m.Method
	if len(m.ID) > 0 && string(m.ID) != "null" {
		c.ID = string(m.ID)
	}
	var p struct {
		Name      string          `json:"name"`
		URI       string          `json:"uri"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if json.Unmarshal(m.Params, &p) == nil {
		c.Name, c.Args = p.Name, p.Arguments
		if c.Name == "" {
			c.Name = p.URI
		}
	}
	return c, true
}

// MCPOf reads a whole exchange as MCP, its answer included (a JSON body,
// or the SSE events of Streamable HTTP carrying the response).
func MCPOf(x *cassettes.Exchange) (c MCPCall, ok bool) {
	return mcpAnswered(x, answerMessages(x))
}

// mcpAnswered reads an exchange as MCP, its answer the first of answers
// carrying its id.
func mcpAnswered(x *cassettes.Exchange, answers [][]byte) (c MCPCall, ok bool) {
	if c, ok = MCPRequestOf(&x.Request); !ok {
		return c, false
	}
	for _, body := range answers {
		m, ok := readJSONRPC(body)
		if !ok || m.Method != "" || (c.ID != "" && string(m.ID) != c.ID) {
			continue
		}
		if m.Error != nil {
			c.Error, c.IsError = m.Error.Message, true
		} else if m.Result != nil {
			c.Result = m.Result
			var r struct {
				IsError bool `json:"isError"`
			}
			if json.Unmarshal(m.Result, &r) == nil {
				c.IsError = r.IsError
			}
		}
		break
	}
	return c, true
}

// answerMessages are the JSON-RPC messages of an answer: its body, or
// the data of each of its SSE events.
func answerMessages(x *cassettes.Exchange) [][]byte {
	if len(x.Response.Events) == 0 {
		return [][]byte{x.Response.Body}
	}
	var out [][]byte
	for _, e := range x.Response.Events {
		if d := eventData(e.Data); len(d) > 0 {
			out = append(out, d)
		}
	}
	return out
}

// eventData joins the data lines of one SSE event as it came over the wire.
func eventData(event []byte) []byte {
	var data [][]byte
	for _, line := range bytes.Split(event, []byte("\n")) {
		line = bytes.TrimSuffix(line, []byte("\r"))
		if v, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			data = append(data, bytes.TrimPrefix(v, []byte(" ")))
		}
	}
	return bytes.Join(data, []byte("\n"))
}

func readJSONRPC(body []byte) (jsonrpc, bool) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 || body[0] != '{' {
		return jsonrpc{}, false
	}
	var m jsonrpc
	if json.Unmarshal(body, &m) != nil || m.Version != "2.0" {
		return jsonrpc{}, false
	}
	return m, true
}

func isA2AMethod(method string) bool {
	return strings.HasPrefix(method, "message/") || strings.HasPrefix(method, "tasks/") || method == "agent/getAuthenticatedExtendedCard"
}

// compactJSON is raw JSON without insignificant space.
func compactJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// idByPlace stands for a JSON-RPC request's id in matching: clients
// number their requests (MCP's from 0 in every session, A2A's often with
// fresh ids), so the id says nothing a recording's place does not. Ids
// are matched by place, like model call ids, and replay answers with the
// id the client sent (AnswerWithID).
const idByPlace = "(matched by place)"

// VolatileJSONRPCID replaces the id of a JSON-RPC 2.0 request in a parsed
// tool body with one placeholder, so requests that differ only in their
// ids match and differ in nothing; a notification (no id) stays one.
func VolatileJSONRPCID(v any) {
	m, ok := v.(map[string]any)
	if !ok || m["jsonrpc"] != "2.0" {
		return
	}
	if _, isRequest := m["method"].(string); !isRequest {
		return
	}
	if _, ok := m["id"]; ok {
		m["id"] = idByPlace
	}
}

// AnswerWithID is a recorded answer to a JSON-RPC request made for a
// request that matched it with another id: the answer's id (in its body,
// or in each SSE event carrying the response) becomes the id sent. ok is
// false when the ids agree, or either side is not a JSON-RPC request.
func AnswerWithID(recorded, got *cassettes.Request, resp *cassettes.Response) (out *cassettes.Response, ok bool) {
	r, rok := readJSONRPC(recorded.Body)
	g, gok := readJSONRPC(got.Body)
	if !rok || !gok || len(r.ID) == 0 || len(g.ID) == 0 || bytes.Equal(r.ID, g.ID) {
		return nil, false
	}
	c := *resp
	if len(resp.Events) == 0 {
		body, changed := replaceID(resp.Body, r.ID, g.ID)
		if !changed {
			return nil, false
		}
		c.Body = body
		return &c, true
	}
	c.Events = make([]cassettes.Event, len(resp.Events))
	for i, e := range resp.Events {
		c.Events[i] = e
		lines := bytes.Split(e.Data, []byte("\n"))
		for j, line := range lines {
			if v, found := bytes.CutPrefix(line, []byte("data:")); found {
				if body, changed := replaceID(bytes.TrimPrefix(v, []byte(" ")), r.ID, g.ID); changed {
					lines[j] = append([]byte("data: "), body...)
					c.Events[i].Data = bytes.Join(lines, []byte("\n"))
					ok = true
				}
			}
		}
	}
	return &c, ok
}

// replaceID splices id into a JSON-RPC message whose top-level id is was,
// every other byte kept.
func replaceID(body, was, id []byte) ([]byte, bool) {
	trimmed := bytes.TrimRight(body, " \t\r\n")
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil, false
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, false
		}
		if key != "id" {
			continue
		}
		if !bytes.Equal(raw, was) {
			return nil, false
		}
		end := int(dec.InputOffset())
		start := end - len(raw)
		out := append(append(append([]byte(nil), body[:start]...), id...), body[end:]...)
		return out, true
	}
	return nil, false
}

// MCPStreamEndpoint reads a recorded stream of the older HTTP+SSE
// transport: the endpoint its "endpoint" event announced (where the client
// POSTs its messages, whose answers come on the stream) and the index of
// that event; ok is false for any other response.
func MCPStreamEndpoint(resp *cassettes.Response) (endpoint string, at int, ok bool) {
	for i, e := range resp.Events {
		if eventField(e.Data, "event") == "endpoint" {
			return string(eventData(e.Data)), i, true
		}
	}
	return "", 0, false
}

// MCPStreamAnswerID is the id of the JSON-RPC response an SSE event
// carries; ok is false for an event carrying anything else (a server's
// notification or request, the endpoint).
func MCPStreamAnswerID(event []byte) (id json.RawMessage, ok bool) {
	m, ok := readJSONRPC(eventData(event))
	if !ok || m.Method != "" || len(m.ID) == 0 || m.Result == nil && m.Error == nil {
		return nil, false
	}
	return m.ID, true
}

// JSONRPCID is the id of a JSON-RPC request (nil for a notification or
// anything else).
func JSONRPCID(body []byte) json.RawMessage {
	m, ok := readJSONRPC(body)
	if !ok || m.Method == "" {
		return nil
	}
	return m.ID
}

// eventField is the value of an SSE event's field (its first line of it).
func eventField(event []byte, name string) string {
	for _, line := range bytes.Split(event, []byte("\n")) {
		line = bytes.TrimSuffix(line, []byte("\r"))
		if v, ok := bytes.CutPrefix(line, []byte(name+":")); ok {
			return string(bytes.TrimPrefix(v, []byte(" ")))
		}
	}
	return ""
}

// MCPStreamAnswers reads the older HTTP+SSE transport in a cassette's
// exchanges: each POST to a stream's endpoint (its path and query, which
// name the session) read as MCP with its answer, the stream's event
// carrying the JSON-RPC response of its id, as that transport answers
// (the POST itself gets 202). A POST whose own body answers it is left
// out, and so is one whose answer the stream lacks.
func MCPStreamAnswers(exchanges []*cassettes.Exchange) map[*cassettes.Exchange]MCPCall {
	out := map[*cassettes.Exchange]MCPCall{}
	type endpoint struct{ host, path, query string }
	streams := map[endpoint]*cassettes.Exchange{}
	for _, x := range exchanges {
		if path, query, ok := mcpStreamEndpoint(x); ok {
			streams[endpoint{x.Request.Host, path, query}] = x
		}
	}
	if len(streams) == 0 {
		return out
	}
	for _, x := range exchanges {
		stream := streams[endpoint{x.Request.Host, x.Request.Path, x.Request.Query}]
		if stream == nil || x.Request.Method != http.MethodPost {
			continue
		}
		if c, ok := MCPOf(x); !ok || c.ID == "" || c.Result != nil || c.Error != "" {
			continue
		}
		if c, _ := mcpAnswered(x, answerMessages(stream)); c.Result != nil || c.Error != "" {
			out[x] = c
		}
	}
	return out
}

// MCPStreamServer is the server whose HTTP+SSE stream an exchange is, as
// its POSTs name it (`mcp.test/messages/`); ok is false for any other
// exchange.
func MCPStreamServer(x *cassettes.Exchange) (server string, ok bool) {
	if path, _, ok := mcpStreamEndpoint(x); ok {
		return x.Request.Host + path, true
	}
	return "", false
}

// mcpStreamEndpoint is the path and query of the endpoint an HTTP+SSE
// stream announced (relative, or absolute on the same host).
func mcpStreamEndpoint(x *cassettes.Exchange) (path, query string, ok bool) {
	if x.Request.Method != http.MethodGet || !x.IsTool() {
		return "", "", false
	}
	e, _, ok := MCPStreamEndpoint(&x.Response)
	if !ok {
		return "", "", false
	}
	u, err := url.Parse(strings.TrimSpace(e))
	if err != nil {
		return "", "", false
	}
	return u.Path, u.RawQuery, true
}
