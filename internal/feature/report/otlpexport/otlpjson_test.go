package otlpexport_test

import (
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/feature/report/otlpexport"
)

// TestUnmarshalJSONNamesABadID: an id that is not hex is an error naming
// the field.
func TestUnmarshalJSONNamesABadID(t *testing.T) {
	doc := `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"not-hex!","name":"x"}]}]}]}`
	_, err := otlpexport.UnmarshalJSON([]byte(doc))
	if err == nil || !strings.Contains(err.Error(), "resourceSpans[0].scopeSpans[0].spans[0].spanId") {
		t.Fatalf("err %v", err)
	}
	req, err := otlpexport.UnmarshalJSON([]byte(strings.Replace(doc, "not-hex!", "eee19b7ec3c1b174", 1)))
	if err != nil || len(req.ResourceSpans[0].ScopeSpans[0].Spans[0].SpanId) != 8 {
		t.Fatalf("%v %v", req, err)
	}
}
