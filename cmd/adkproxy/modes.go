// The CLI's mode names: record --mode, replay --mode and --match, and the
// judge's and simulated user's record|replay, read into proxy.Config.

package main

import (
	"fmt"
	"strings"

	"github.com/adkproxy/adkproxy/proxy"
)

// recordModes are record --mode's names for the proxy's record modes.
var recordModes = map[string]proxy.Mode{
	"overwrite":    proxy.ModeRecord,
	"once":         proxy.ModeRecordOnce,
	"new-episodes": proxy.ModeRecordNewEpisodes,
	"refresh":      proxy.ModeRecordRefresh,
	"passthrough":  proxy.ModePassthrough,
}

// recordModeNames is recordModes' names in the order help and errors give them.
var recordModeNames = []string{"overwrite", "once", "new-episodes", "refresh", "passthrough"}

// recordModeFor reads record --mode.
func recordModeFor(name string) (proxy.Mode, error) {
	if m, ok := recordModes[name]; ok {
		return m, nil
	}
	return "", unknownName("record mode", name, recordModeNames...)
}

// lenientFor reads replay --mode: strict or lenient.
func lenientFor(name string) (bool, error) {
	switch name {
	case "strict":
		return false, nil
	case "lenient":
		return true, nil
	}
	return false, unknownName("replay mode", name, "strict", "lenient")
}

// conformanceKeysFor reads replay --match: body or conformance.
func conformanceKeysFor(name string) (bool, error) {
	switch name {
	case "body":
		return false, nil
	case "conformance":
		return true, nil
	}
	return false, unknownName("match mode", name, "body", "conformance")
}

// modelModeFor reads --judge-mode and --sim-mode: record or replay.
func modelModeFor(name string) (proxy.Mode, error) {
	switch m := proxy.Mode(name); m {
	case proxy.ModeRecord, proxy.ModeReplay:
		return m, nil
	}
	return "", unknownName("mode", name, string(proxy.ModeRecord), string(proxy.ModeReplay))
}

// unknownName says a name is none of the known ones, naming them.
func unknownName(what, name string, known ...string) error {
	last := len(known) - 1
	return fmt.Errorf("%s %q: unknown mode (want %s or %s)", what, name, strings.Join(known[:last], ", "), known[last])
}
