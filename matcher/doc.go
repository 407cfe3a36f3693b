// Package matcher decides whether a request is one that was recorded: it
// canonicalises requests (JSON parsed, object keys sorted, array order kept,
// numbers compared by value), fingerprints them, and explains a mismatch as
// a list of differences by JSON path.
package matcher
