// The keys that say what a Gemini content part is, for readers that
// compare answers by their fields (adkproxy drift) and must tell a part
// of another kind from a field added or removed.

package wire

import "slices"

// partKinds are the keys of a content part that make it a part of its
// kind (one of them per part).
var partKinds = []string{"text", "functionCall", "functionResponse", "executableCode", "codeExecutionResult", "inlineData", "fileData", "thought"}

// IsPartKind says whether key, in a content part, says what the part is.
func IsPartKind(key string) bool { return slices.Contains(partKinds, key) }
