package proxy

import "testing"

// TestVertexUpstreamHosts: the Vertex AI host a path calls for, by
// Google's endpoint rules, and none for every other path (a project or
// publisher named further down a path included).
func TestVertexUpstreamHosts(t *testing.T) {
	for path, want := range map[string]string{
		"/v1/projects/p/locations/europe-west4/publishers/google/models/gemini-2.5-flash:generateContent": "europe-west4-aiplatform.googleapis.com",
		"/v1beta1/projects/p/locations/global/publishers/google/models/m:streamGenerateContent":           "aiplatform.googleapis.com",
		"/v1/projects/p/locations/us/cachedContents":                                                      "aiplatform.us.rep.googleapis.com",
		"/v1/projects/p/locations/eu/cachedContents":                                                      "aiplatform.eu.rep.googleapis.com",
		"/v1/publishers/google/models/gemini-2.5-flash:generateContent":                                   "aiplatform.googleapis.com",
		"/v1beta/models/gemini-2.5-flash:generateContent":                                                 "",
		"/v1beta/files/projects/x":                                                                        "",
		"/upload/v1beta/files/publishers/":                                                                "",
		"/v1/projects/p/models":                                                                           "",
	} {
		u, ok := vertexUpstream(path)
		got := ""
		if ok {
			got = u.Host
		}
		if got != want || ok != (want != "") {
			t.Errorf("%s: host %q (ok %v), want %q", path, got, ok, want)
		}
	}
}
