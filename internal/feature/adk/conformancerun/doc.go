// Package conformancerun runs ADK's conformance corpus on the wire against
// an ADK API server of any language, and reports the results.
//
// For each case (Run): the case's recordings are imported into a cassette
// (conformance.ImportCorpus), the server command serves the case's
// agent (one server per agent, reused by its cases) with its model calls
// sent to an in-process adkproxy replaying the cassette with conformance
// keying (proxy.Config.ConformanceKeys), the spec's turns are driven
// (package drive), and the session the server ends with is compared with
// generated-session.yaml by ADK's stripping rules
// (conformance.CompareSession). A case PASSes, FAILs with the first
// difference, or is SKIPped when its agent cannot load, with the reason.
// How each request body differs from ADK Python's is listed per case as
// findings, grouped; a profile says which groups fail a case.
//
// The reports (table, JSON, JUnit, Markdown) are output_*.go.
package conformancerun
