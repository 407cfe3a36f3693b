//go:build !linux

package safefile

import "os"

// SyncData is File.Sync where fdatasync is not used: on macOS it is
// F_FULLFSYNC (a plain fsync there leaves the data in the drive's cache),
// on Windows FlushFileBuffers.
func SyncData(f *os.File) error { return f.Sync() }
