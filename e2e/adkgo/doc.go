// Package adkgo runs ADK's conformance corpus against ADK Go's own
// conformance server (adkcli from google.golang.org/adk v1.7.0): on the wire
// through adkproxy conformance, and in process through ADK Go's replay
// plugin, so every difference between the two is visible and explained;
// and ADK Go agents run in process through the proxy (its tool
// confirmation flow), recorded, replayed and read by the real binary.
package adkgo
