// The version --version prints: the module's build information.

package main

import (
	"runtime"
	"runtime/debug"
	"strings"
)

// version overrides the build information when set at link time, as the
// container image does (-ldflags "-X main.version=v1.2.3"): its build
// context has no .git for Go to read.
var version string

// versionText is what --version prints: the module version Go stamped from
// the checkout (or the one set at link time), then where it was built from:
// the VCS revision and commit time, "modified" when the checkout had
// uncommitted changes, and the Go version.
func versionText() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		info = nil
	}
	return versionFrom(info, version)
}

// versionFrom is versionText for the build information info (nil when the
// binary has none) and the link-time version override.
func versionFrom(info *debug.BuildInfo, override string) string {
	v := override
	ok := info != nil
	if v == "" && ok {
		v = info.Main.Version
	}
	if v == "" {
		v = "(devel)"
	}
	var from []string
	if ok {
		vcs := map[string]string{}
		for _, s := range info.Settings {
			vcs[s.Key] = s.Value
		}
		if rev := vcs["vcs.revision"]; rev != "" {
			from = append(from, "revision "+rev)
		}
		if t := vcs["vcs.time"]; t != "" {
			from = append(from, t)
		}
		if vcs["vcs.modified"] == "true" {
			from = append(from, "modified")
		}
	}
	from = append(from, runtime.Version())
	return v + " (" + strings.Join(from, ", ") + ")"
}
