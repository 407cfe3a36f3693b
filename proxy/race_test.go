//go:build race

package proxy_test

// raceEnabled: the race detector allocates on its own; allocation counts
// are only asserted without it.
const raceEnabled = true
