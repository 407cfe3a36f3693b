//go:build !linux

package cassettes

// addressSpaceLeft: no limit is read outside Linux.
func addressSpaceLeft() (int64, bool) { return 0, false }
