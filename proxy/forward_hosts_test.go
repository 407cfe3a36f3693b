package proxy

import "testing"

func TestIsGeminiHost(t *testing.T) {
	for host, want := range map[string]bool{
		"generativelanguage.googleapis.com":           true,
		"GenerativeLanguage.googleapis.com":           true,
		"generativelanguage.googleapis.com.":          true,
		"aiplatform.googleapis.com":                   true,
		"us-central1-aiplatform.googleapis.com":       true,
		"europe-west4-aiplatform.googleapis.com":      true,
		"aiplatform.us.rep.googleapis.com":            true,
		"aiplatform.eu.rep.googleapis.com":            true,
		"oauth2.googleapis.com":                       false,
		"evil.com-aiplatform.googleapis.com":          false,
		"aiplatform.a.b.rep.googleapis.com":           false,
		"aiplatform..rep.googleapis.com":              false,
		"generativelanguage.googleapis.com.evil.test": false,
		"weather.example.test":                        false,
	} {
		if got := isGeminiHost(host); got != want {
			t.Errorf("isGeminiHost(%q) = %v, want %v", host, got, want)
		}
	}
}

func TestMatchHost(t *testing.T) {
	for _, c := range []struct {
		pattern, host string
		want          bool
	}{
		{"oauth2.googleapis.com", "oauth2.googleapis.com", true},
		{"oauth2.googleapis.com", "OAUTH2.googleapis.com", true},
		{"oauth2.googleapis.com", "x.oauth2.googleapis.com", false},
		{"*.example.com", "a.example.com", true},
		{"*.example.com", "a.b.Example.com", true},
		{"*.example.com", "example.com", false},
		{"*.example.com", "badexample.com", false},
		{"localhost", "localhost.", true},
		{"localhost", "LOCALHOST..", true},
		{"localhost.", "localhost", true},
		{"*.example.com", "a.example.com.", true},
		{"*.example.com", "example.com.", false},
		{"*.example.com.", "a.Example.COM", true},
	} {
		if got := matchHost(c.pattern, c.host); got != c.want {
			t.Errorf("matchHost(%q, %q) = %v, want %v", c.pattern, c.host, got, c.want)
		}
	}
}
