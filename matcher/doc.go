// Package matcher decides whether a request is one that was recorded: it
// canonicalises requests (JSON parsed, object keys sorted, array order kept,
// numbers compared by value), leaves out ignored fields (ignore paths),
// fingerprints them, and explains a mismatch as a list of differences by
// JSON path.
//
// Where a call belongs in its conversation (sessions, invocations, steps)
// is package conversation's, which reads requests through a Matcher so the
// same fields are ignored.
package matcher
