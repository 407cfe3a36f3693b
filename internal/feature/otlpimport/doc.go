// Package otlpimport turns ADK's OpenTelemetry spans, read from an OTLP
// JSON export, into a cassette and an eval set, so that a conversation
// seen in production replays and scores offline. It reads ADK's span
// tree (invocation → invoke_agent/agent_run → call_llm → execute_tool),
// rebuilds each model call whose span carries both the
// gcp.vertex.agent.llm_request and llm_response attributes as a
// generateContent exchange (by package conformance's mapping of ADK's
// LlmRequest and LlmResponse), and makes the eval set from what the
// spans carry when they lack bodies: the user text, the execute_tool
// spans' calls and results, the last answer, each gap listed per span
// and attribute. Personal data and secrets are replaced by stable
// placeholders before anything is built, and ids that do not look
// machine-made after the sessions are grouped; each replacement is
// listed for review.
package otlpimport
