// Package matcher decides whether a request is one that was recorded: it
// canonicalises requests (JSON parsed, object keys sorted, array order kept,
// numbers compared by value), leaves out ignored fields (ignore paths),
// fingerprints them, and explains a mismatch as a list of differences by
// JSON path. It also holds the vocabulary of what matching decided: the
// replay report (an Outcome per request), the conformance key a model
// call is looked up by the way ADK's ReplayPlugin keys it, and findings
// (differences grouped by request part).
//
// Where a call belongs in its conversation (sessions, invocations, steps)
// is package conversation's, which reads requests through a Matcher so the
// same fields are ignored.
package matcher
