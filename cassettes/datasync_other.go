//go:build !linux

package cassettes

import "os"

// syncData is File.Sync where fdatasync is not used: on macOS it is
// F_FULLFSYNC (a plain fsync there leaves the data in the drive's cache),
// on Windows FlushFileBuffers.
func syncData(f *os.File) error { return f.Sync() }
