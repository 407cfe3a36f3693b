package textfmt

import (
	"bytes"
	"encoding/json"
)

// IndentedJSON is v as adkproxy writes every JSON file and document: two
// spaces of indentation, "<", ">" and "&" left as they are (ADK's files and
// people's prompts hold them), and a final newline.
func IndentedJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// CompactJSON is v as compact JSON with "<", ">" and "&" left as they are
// and no final newline: what a MarshalJSON method returns for a document
// IndentedJSON writes (an encoder does not undo a Marshaler's escaping).
func CompactJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), err
}
