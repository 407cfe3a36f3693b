package textfmt

import "strings"

// Camel spells a snake_case name in camelCase the way pydantic's to_camel
// and protobuf's JSON names do (system_instruction → systemInstruction),
// the two spellings the Gemini API and ADK's models accept for one field.
// A name without an underscore, or with a leading, trailing or doubled
// one, is kept as it is: it is not a snake_case field name.
func Camel(snake string) string {
	if !strings.Contains(snake, "_") || strings.HasPrefix(snake, "_") || strings.HasSuffix(snake, "_") || strings.Contains(snake, "__") {
		return snake
	}
	parts := strings.Split(snake, "_")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}

// Snake spells a camelCase name in snake_case (systemInstruction →
// system_instruction), Camel's inverse for names without digits or runs
// of capitals.
func Snake(camel string) string {
	var b strings.Builder
	b.Grow(len(camel) + 4)
	for i, r := range camel {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// CamelKeys re-spells every object key of a decoded JSON value from
// snake_case to camelCase, at every depth, returning a new value. When
// both spellings of a key are present the camelCase one wins, as in
// pydantic's models, which look a field's alias up first.
func CamelKeys(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			ck := Camel(k)
			if _, taken := out[ck]; taken && ck != k {
				continue
			}
			out[ck] = CamelKeys(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = CamelKeys(x)
		}
		return out
	}
	return v
}
