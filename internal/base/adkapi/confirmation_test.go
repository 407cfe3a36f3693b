package adkapi

import "testing"

// ADK's refusal result, as each ADK sends it to the model, and results
// that only look like one.
func TestIsRefusal(t *testing.T) {
	for _, tc := range []struct {
		tool string
		resp map[string]any
		want bool
	}{
		{"book_room", map[string]any{"error": "This tool call is rejected."}, true},             // ADK Python, ADK-JS
		{"book_room", map[string]any{"error": `error tool "book_room" call is rejected`}, true}, // ADK Go
		{"book_room", map[string]any{"error": `error tool "other" call is rejected`}, false},
		{"book_room", map[string]any{"error": "This tool call is rejected.", "status": "booked"}, false},
		{"book_room", map[string]any{"error": "This tool call requires confirmation, please approve or reject."}, false},
		{"book_room", map[string]any{"status": "booked"}, false},
		{"book_room", nil, false},
	} {
		if got := IsRefusal(tc.tool, tc.resp); got != tc.want {
			t.Errorf("IsRefusal(%q, %v) = %v, want %v", tc.tool, tc.resp, got, tc.want)
		}
	}
}
