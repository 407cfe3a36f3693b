// Package outbound is the one policy of every HTTP client adkproxy opens
// to a server it does not run itself: an ADK API server (drive,
// conformance, simulate), an OTLP collector (export --otlp-endpoint) and
// the judge's calls. Such a server may be hostile, so each answer is
// capped in size, connecting, the answer's headers and every silence in
// its body are timed out, and a redirect to another origin is refused
// unless allowed by name. Text a server sends that adkproxy shows on a
// terminal goes through Printable.
package outbound
