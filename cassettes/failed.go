// Set-aside recordings: what a failed record run recorded for a cassette
// it would have replaced, kept in a file beside it that nothing replays.

package cassettes

import "strings"

// failedStem ends the stem of a set-aside file: the cassette foo/bar.yaml
// has its failed run in foo/bar.failed.yaml. FileName never maps a
// cassette name onto such a file (see safeSegment), so the two cannot meet.
const failedStem = ".failed"

// FailedPath is the file beside the cassette at path that holds a failed
// run's recording of it.
func FailedPath(path string) string {
	return strings.TrimSuffix(path, Extension) + failedStem + Extension
}

// IsFailedPath reports whether path is a set-aside file (see FailedPath):
// Files, and so replay and every command reading a folder, skip it.
func IsFailedPath(path string) bool {
	return strings.HasSuffix(path, failedStem+Extension)
}
