// Package conversation owns the structure of a recorded run: which agent
// made a model call and at which step of which user turn (Analyze, Call),
// where the call belongs among sessions and invocations, live as calls
// arrive or afterwards for a version 1 file (Organizer, Organize); package
// wire cuts a Live connection into steps (wire.LiveSteps). Package
// recorded reads a cassette back as sessions of invocations of steps with
// it.
//
// It reads only what is on the wire, with the ignored fields of a
// matcher.Matcher left out, so what groups and what matches never
// disagree. The proxy places calls with it while recording and looks
// missed calls up by their Slot; recorded groups with it.
package conversation
