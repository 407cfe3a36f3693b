// Package conformance is adkproxy's side of ADK's cross-language
// conformance corpus (tests/<category>/<case>/{spec.yaml,
// generated-recordings.yaml, generated-session.yaml}): it reads the three
// files with errors that name file:line, converts ADK Python's recordings
// into a cassette (Import) and a cassette back into recordings (Export),
// says which request-body findings fail a case (Profile; the key and the
// findings themselves are matcher's, so the proxy can use them without
// this importer), and compares a session an ADK API server returned with the
// recorded one by ADK's stripping rules (CompareSession).
//
// It knows nothing about serving or driving: the proxy replays what
// Import wrote, the driver posts what ReadSpec read.
package conformance
