// Cassette names and the files they map to: safe paths that cannot escape
// the cassette folder, distinct for distinct names.

package cassettes

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"
)

// DefaultName is the cassette used when a request names none.
const DefaultName = "default"

// Extension is the file extension of cassette files.
const Extension = ".yaml"

// maxSegment keeps each path segment well inside every file system's limit.
const maxSegment = 100

// FileName maps a cassette name to a path relative to the cassette folder.
// A "/" in the name makes subfolders (test names like "TestX/case" keep
// their shape). Empty segments, "." and ".." and absolute names are refused;
// any other character outside [A-Za-z0-9._-] becomes "_", as does a dot
// that starts or ends a segment or follows another dot, and the segment
// gets a short hash of its original spelling, so distinct names never share
// a file (on a case-sensitive file system: "A" and "a" are different files
// only there). The original name is kept inside the file.
func FileName(name string) (string, error) {
	if name == "" {
		return "", fmt.Errorf("%w: the name is empty", ErrUnsafeName)
	}
	if strings.HasPrefix(name, "/") || strings.HasPrefix(name, `\`) || filepath.IsAbs(name) {
		return "", fmt.Errorf("%w: %q is absolute; use a relative name like \"suite/test\"", ErrUnsafeName, name)
	}
	segments := strings.Split(name, "/")
	for i, seg := range segments {
		switch seg {
		case "":
			return "", fmt.Errorf("%w: %q has an empty path segment", ErrUnsafeName, name)
		case ".", "..":
			return "", fmt.Errorf("%w: %q contains %q", ErrUnsafeName, name, seg)
		}
		segments[i] = safeSegment(seg)
	}
	return filepath.Join(segments...) + Extension, nil
}

func safeSegment(seg string) string {
	var b strings.Builder
	changed := false
	prevDot := false
	for i, r := range seg {
		dot := r == '.'
		switch {
		case dot && (i == 0 || prevDot || i == len(seg)-1):
			// No hidden files, no ".." anywhere (so no "..." tricks) and no
			// trailing dot, which Windows drops and which would put ".." in
			// front of the extension.
			b.WriteByte('_')
			changed = true
		case r < 128 && (dot || r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'):
			b.WriteRune(r)
		default:
			b.WriteByte('_')
			changed = true
		}
		prevDot = dot
	}
	out := b.String()
	if len(out) > maxSegment {
		out = out[:maxSegment]
		changed = true
	}
	if changed {
		sum := sha256.Sum256([]byte(seg))
		out += "-" + hex.EncodeToString(sum[:4])
	}
	return out
}
