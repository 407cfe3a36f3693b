//go:build race

package proxy_test

// raceEnabled: the race detector changes what allocates (sync.Pool drops
// what it is given at random), so allocation counts are not checked.
const raceEnabled = true
