package mcp

import (
	"path/filepath"
	"strings"
)

// interpreters run the script that names the server.
var interpreters = map[string]bool{"node": true, "nodejs": true, "python": true, "python3": true, "npx": true,
	"uv": true, "uvx": true, "deno": true, "bun": true, "bunx": true, "go": true, "sh": true, "bash": true, "tsx": true, "ts-node": true, "pipx": true}

// ServerName is the name a server's exchanges are filed under when --name
// gives none: the command's base name, or for an interpreter the first
// argument that is not an option or a subcommand word ("node weather.js"
// is weather, "uvx mcp-server-time" is mcp-server-time), lower case,
// without extension, other characters as '-'.
func ServerName(argv []string) string {
	name := filepath.Base(argv[0])
	if interpreters[strings.TrimSuffix(name, ".exe")] {
		for _, a := range argv[1:] {
			if strings.HasPrefix(a, "-") || a == "run" || a == "exec" || a == "tool" {
				continue
			}
			name = filepath.Base(a)
			break
		}
	}
	name = strings.TrimSuffix(name, filepath.Ext(name))
	var b strings.Builder
	for _, c := range strings.ToLower(name) {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-' {
			b.WriteRune(c)
		} else {
			b.WriteByte('-')
		}
	}
	n := strings.Trim(b.String(), "-.")
	if n == "" {
		n = "mcp"
	}
	if len(n) > 63 {
		n = n[:63]
	}
	return n
}

func validName(name string) bool {
	if name == "" || len(name) > 63 {
		return false
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}
