package conversation_test

import (
	"testing"

	"github.com/adkproxy/adkproxy/internal/data/conversation"
)

func TestModelOfPath(t *testing.T) {
	for path, want := range map[string]string{
		"/v1beta/models/gemini-2.5-flash:generateContent":                                                    "gemini-2.5-flash",
		"/v1/projects/p/locations/us-central1/publishers/google/models/gemini-2.5-pro:streamGenerateContent": "gemini-2.5-pro",
		"/v1beta/files": "",
	} {
		if got := conversation.ModelOfPath(path); got != want {
			t.Errorf("%s: %q", path, got)
		}
	}
}
