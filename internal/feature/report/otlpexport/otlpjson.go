// The OTLP/JSON form of a request: protojson's proto3 JSON mapping with the
// changes the OTLP specification makes to it.

package otlpexport

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/adkproxy/adkproxy/internal/base/textfmt"
)

// idKeys are the OTLP/JSON fields that hold trace and span ids: the spec
// writes them as hex strings where proto3 JSON would write base64.
var idKeys = map[string]bool{"traceId": true, "spanId": true, "parentSpanId": true}

// MarshalJSON writes req as OTLP/JSON (opentelemetry-proto's "JSON
// Protobuf Encoding"): lowerCamelCase keys, 64-bit integers as decimal
// strings and default values left out, as protojson writes them; enums as
// integers (protojson's UseEnumNumbers); trace and span ids as hex. The
// output is indented and stable, keys sorted, so the same request always
// gives the same bytes (protojson's own output varies on purpose).
func MarshalJSON(req *coltracepb.ExportTraceServiceRequest) ([]byte, error) {
	raw, err := protojson.MarshalOptions{UseEnumNumbers: true}.Marshal(req)
	if err != nil {
		return nil, err
	}
	doc, err := decodeJSON(raw)
	if err != nil {
		return nil, err
	}
	if err := convertIDs(doc, "", func(s string) (string, error) {
		b, err := base64.StdEncoding.DecodeString(s)
		return hex.EncodeToString(b), err
	}); err != nil {
		return nil, err
	}
	return textfmt.IndentedJSON(doc)
}

// UnmarshalJSON reads OTLP/JSON, as MarshalJSON or any OTLP exporter
// writes it, into the OTLP types: hex ids are read as the spec says,
// enums by name or number.
func UnmarshalJSON(data []byte) (*coltracepb.ExportTraceServiceRequest, error) {
	doc, err := decodeJSON(data)
	if err != nil {
		return nil, fmt.Errorf("OTLP/JSON: %w", err)
	}
	if err := convertIDs(doc, "", func(s string) (string, error) {
		b, err := hex.DecodeString(s)
		return base64.StdEncoding.EncodeToString(b), err
	}); err != nil {
		return nil, fmt.Errorf("OTLP/JSON: %w", err)
	}
	raw, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	req := &coltracepb.ExportTraceServiceRequest{}
	if err := protojson.Unmarshal(raw, req); err != nil {
		return nil, fmt.Errorf("OTLP/JSON: %w", err)
	}
	return req, nil
}

func decodeJSON(data []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var doc any
	if err := d.Decode(&doc); err != nil {
		return nil, err
	}
	return doc, nil
}

// convertIDs rewrites every id field in place; where names the field in
// an error ("resourceSpans[0].scopeSpans[1].spans[3].spanId").
func convertIDs(v any, where string, convert func(string) (string, error)) error {
	switch v := v.(type) {
	case map[string]any:
		for k, val := range v {
			at := k
			if where != "" {
				at = where + "." + k
			}
			if s, ok := val.(string); ok && idKeys[k] {
				c, err := convert(s)
				if err != nil {
					return fmt.Errorf("%s %q is not a valid id: %v", at, s, err)
				}
				v[k] = c
				continue
			}
			if err := convertIDs(val, at, convert); err != nil {
				return err
			}
		}
	case []any:
		for i, e := range v {
			if err := convertIDs(e, fmt.Sprintf("%s[%d]", where, i), convert); err != nil {
				return err
			}
		}
	}
	return nil
}
