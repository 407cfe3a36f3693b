// Package otlpexport owns a recorded run as OpenTelemetry traces: the
// spans ADK would have emitted for it (invocation → invoke_agent →
// call_llm → generate_content → execute_tool, with ADK's gen_ai.* and
// gcp.vertex.agent.* attributes), the forward proxy's tool exchanges as
// HTTP client spans, laid out in time from the recorded latencies, with
// trace and span ids derived from the cassettes so an export is
// reproducible (Build). It also owns the OTLP/JSON form of the payload
// (MarshalJSON, UnmarshalJSON: hex ids, enums as numbers) and sending it
// to a collector over OTLP/HTTP, in batches a receiver takes (Push,
// Batches).
//
// It reads runs as package recorded models them; the payload is built with the official OTLP
// Go types (go.opentelemetry.io/proto/otlp). docs/traces.md describes
// the tree, the attributes and the id derivation for users.
package otlpexport
