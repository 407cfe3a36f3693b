// Package prune removes from cassettes the recordings a run left unused,
// as the run's --report file lists them (outcome "unused"), so a strict
// replay of what the agent does now passes. It decides what to remove;
// writing the cassettes back is the caller's (cassettes.Save, after
// cassettes.CheckNoSymlinks).
//
// A recording is removed only when the report identifies it beyond doubt:
// by its place (session, invocation, step, agent, user text) and its
// method and path, and only when the report lists every recording at that
// place as unused. Anything else is kept and listed in Plan.Kept.
package prune
