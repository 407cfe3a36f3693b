//go:build !unix

package mcp

// alive cannot ask without signals: every file counts as live.
func alive(int) bool { return true }
