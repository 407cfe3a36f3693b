// Package otlpimport turns ADK's OpenTelemetry spans, read from an OTLP
// JSON export, into a cassette and an eval set, so that a conversation
// seen in production replays and scores offline. It reads ADK's span
// tree (invocation → invoke_agent/agent_run → call_llm → execute_tool),
// rebuilds each model call as a generateContent exchange from the
// gcp.vertex.agent.llm_request and llm_response attributes (by package
// conformance's mapping of ADK's LlmRequest and LlmResponse), and replaces
// personal data and secrets by stable placeholders before anything is
// built, listing each replacement for review.
package otlpimport
