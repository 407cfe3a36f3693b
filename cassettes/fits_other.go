//go:build !linux

package cassettes

// addressSpaceLeft: no limit is read outside Linux.
func addressSpaceLeft() (int64, bool) { return 0, false }

// memoryLeft: what is available is not read outside Linux.
func memoryLeft() (int64, string, bool) { return 0, "", false }
