// ls's provenance line, made comparable across recordings of one run.

package testutil

import "regexp"

var (
	provenanceLine     = regexp.MustCompile(`(?m)^  recorded .*$`)
	provenanceTime     = regexp.MustCompile(`^(  recorded )\d{4}-\d\d-\d\d \d\d:\d\d UTC`)
	provenanceAdkproxy = regexp.MustCompile(`( · by adkproxy )[^·]*?( · |$)`)
	runtimeToken       = regexp.MustCompile(`\b(gl-(?:go|python|node|java))/[^\s,·]+`)
)

// SteadyProvenance rewrites the provenance lines of ls's table so that
// two recordings of one run read the same when made at another time, by
// another build of adkproxy or on another version of the language runtime
// (gl-go, gl-python: the machine's, not the example's): those three
// become TIME, VERSION and RUNTIME. Everything else stays: the upstream's
// kind, the SDKs' and frameworks' versions (which an example pins), the
// models asked for and answered, and "provenance not recorded".
func SteadyProvenance(ls string) string {
	return provenanceLine.ReplaceAllStringFunc(ls, func(s string) string {
		s = provenanceTime.ReplaceAllString(s, "${1}TIME")
		s = provenanceAdkproxy.ReplaceAllString(s, "${1}VERSION${2}")
		return runtimeToken.ReplaceAllString(s, "$1/RUNTIME")
	})
}
