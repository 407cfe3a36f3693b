// Package runview shows a run as people read it (recorded.Run): the table
// of 'adkproxy ls' (WriteTable) and its JSON document (WriteJSON), whose
// step shows what it was sent and answered, its usage and latency, and
// each invocation's confirmations and refusals.
package runview
