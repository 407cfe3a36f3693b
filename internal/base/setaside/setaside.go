// Package setaside names the file a failed record run writes beside a
// cassette it would have replaced (record keeps the cassette as it was):
// foo/bar.yaml has its failed run in foo/bar.failed.yaml. Nothing reads
// such a file as a cassette: the cassettes package skips it when listing
// a folder and never maps a cassette name onto it.
package setaside

import "strings"

// Stem ends a set-aside file's stem, before the cassette extension.
const Stem = ".failed"

// extension is the cassette file extension (cassettes.Extension, which
// this package, below cassettes, cannot import).
const extension = ".yaml"

// Path is the set-aside file of the cassette at path.
func Path(path string) string {
	return strings.TrimSuffix(path, extension) + Stem + extension
}

// Is reports whether path is a set-aside file.
func Is(path string) bool {
	return strings.HasSuffix(path, Stem+extension)
}
