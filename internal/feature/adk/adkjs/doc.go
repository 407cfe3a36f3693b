// Package adkjs serves ADK's conformance corpus agents from ADK-JS's API
// server (`adk api_server` in @google/adk-devtools).
//
// ADK-JS's server loads only JS/TS agents (<app>/agent.mjs), while the
// corpus's agents are ADK agent-config YAML with Python tools and
// callbacks. @google/adk-devtools ships what its own conformance command
// uses to run them: a YAML agent loader, an agent registry and JS ports of
// the corpus's tools and callbacks (dist/esm/conformance/, dist/esm/integration/).
// WriteAgentsDir copies corpus agents into an agents folder and writes beside
// each root_agent.yaml a small agent.mjs that builds the agent with those,
// so the same folder serves ADK Python (which reads the YAML) and ADK-JS.
//
// The test-support package adkjstest starts that server for tests.
package adkjs
