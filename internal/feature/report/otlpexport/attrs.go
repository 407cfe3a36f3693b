// Attribute values and the HTTP client spans of tool exchanges.

package otlpexport

import (
	"net"
	"strconv"
	"strings"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/adkproxy/adkproxy/internal/data/recorded"
	"github.com/adkproxy/adkproxy/internal/wire"
)

// str is a string attribute. OTLP strings must be UTF-8 (protobuf
// refuses to encode others), and a recorded path or query need not be.
func str(k, v string) *commonpb.KeyValue {
	return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: validUTF8(v)}}}
}

// validUTF8 replaces each byte that is not UTF-8 with U+FFFD; span names
// go through it too.
func validUTF8(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }

func integer(k string, v int64) *commonpb.KeyValue {
	return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: v}}}
}

func float(k string, v float64) *commonpb.KeyValue {
	return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_DoubleValue{DoubleValue: v}}}
}

func strs(k string, vs ...string) *commonpb.KeyValue {
	values := make([]*commonpb.AnyValue, len(vs))
	for i, v := range vs {
		values[i] = &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: validUTF8(v)}}
	}
	return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_ArrayValue{ArrayValue: &commonpb.ArrayValue{Values: values}}}}
}

// httpSpan is a tool's request to another host as OpenTelemetry's HTTP
// client conventions name it: span "GET", kind CLIENT, http.request.method,
// url.full (credentials were scrubbed when recording), server.address and
// port, http.response.status_code; a status of 400 or more is an error.
func httpSpan(t *trace, path string, parent *tracepb.Span, h *recorded.HTTPCall) *tracepb.Span {
	host, port := h.Host, defaultPort(h.Scheme)
	if hh, p, err := net.SplitHostPort(h.Host); err == nil {
		host = hh
		port, _ = strconv.Atoi(p)
	}
	full := h.Scheme + "://" + h.Host + h.Path
	if h.Query != "" {
		full += "?" + h.Query
	}
	attrs := []*commonpb.KeyValue{
		str("http.request.method", h.Method), str("url.full", full), str("url.scheme", h.Scheme), str("url.path", h.Path),
		str("server.address", host), integer("server.port", int64(port)), integer("http.response.status_code", int64(h.Status)),
	}
	if h.Query != "" {
		attrs = append(attrs, str("url.query", h.Query))
	}
	name := h.Method
	switch {
	case h.MCP != nil: // OpenTelemetry's MCP conventions: "{method} {tool}"
		name = strings.TrimSpace(h.MCP.Method + " " + h.MCP.Name)
		if h.Scheme == "stdio" { // no URL: the server is a process on a pipe
			attrs = []*commonpb.KeyValue{str("network.transport", "pipe")}
		}
		attrs = append(attrs, mcpAttrs(h.MCP)...)
	case h.A2A != nil:
		name = h.A2A.Method + " " + h.A2A.Agent
		attrs = append(attrs, str("adkproxy.a2a.agent", h.A2A.Agent), str("adkproxy.a2a.method", h.A2A.Method))
	}
	s := &tracepb.Span{TraceId: t.id, SpanId: spanID(t.id, path), ParentSpanId: parent.SpanId, Name: validUTF8(name),
		Kind: tracepb.Span_SPAN_KIND_CLIENT, Attributes: attrs}
	if h.Status >= 400 {
		code := strconv.Itoa(h.Status)
		s.Attributes = append(s.Attributes, str("error.type", code))
		s.Status = &tracepb.Status{Code: tracepb.Status_STATUS_CODE_ERROR, Message: "HTTP " + code}
	}
	t.http = append(t.http, s)
	return s
}

func defaultPort(scheme string) int {
	if scheme == "http" {
		return 80
	}
	return 443
}

// mcpAttrs are an MCP call's attributes: its method, server and JSON-RPC
// id, and for tools/call the tool, as a gen_ai execute_tool.
func mcpAttrs(c *wire.MCPCall) []*commonpb.KeyValue {
	attrs := []*commonpb.KeyValue{str("mcp.method.name", c.Method), str("adkproxy.mcp.server", c.Server)}
	if c.ID != "" {
		attrs = append(attrs, str("jsonrpc.request.id", c.ID))
	}
	if c.Method == "tools/call" {
		attrs = append(attrs, str("gen_ai.operation.name", "execute_tool"), str("gen_ai.tool.name", c.Name))
	}
	return attrs
}
