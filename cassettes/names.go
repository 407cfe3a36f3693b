// Cassette names and the files they map to: safe paths that cannot escape
// the cassette folder, distinct for distinct names.

package cassettes

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/adkproxy/adkproxy/internal/base/samplename"
	"github.com/adkproxy/adkproxy/internal/base/setaside"
)

// DefaultName is the cassette used when a request names none.
const DefaultName = "default"

// Extension is the file extension of cassette files.
const Extension = ".yaml"

// maxSegment keeps each path segment well inside every file system's limit.
const maxSegment = 100

// Caps on cassette names, checked before anything is forwarded. A name is
// at most maxNameBytes long, and the longest path adkproxy writes for it
// (the folder, the file, and its temporary sibling ".<file>.tmp-<10 digits>")
// at most maxPathBytes: PATH_MAX on macOS, the smallest of the usual
// systems, so a cassette recorded on Linux can be checked out there. Each
// path segment is at most maxSegment bytes plus a 9-byte hash and the
// extension, about 130 bytes with the temporary suffix: under the 255-byte
// limit of every common file system.
const (
	maxNameBytes = 1024
	maxPathBytes = 1024
)

// tmpOverhead is what the longest file written for a cassette adds to its
// path: "." + ".tmp-" + up to 10 digits (os.CreateTemp).
const tmpOverhead = 1 + len(".tmp-") + 10

// ShortName quotes a cassette name for a message, cut to 64 bytes with a
// marker and the full length when longer, so no error or log line echoes
// a huge name.
func ShortName(name string) string {
	const keep = 64
	if len(name) <= keep {
		return strconv.Quote(name)
	}
	cut := keep
	for cut > 0 && !utf8.RuneStart(name[cut]) {
		cut--
	}
	return fmt.Sprintf("%s…(%d bytes)", strconv.Quote(name[:cut]), len(name))
}

// PathFor is the file of cassette name below dir, once the name and the
// path it makes are within the caps.
func PathFor(dir, name string) (string, error) {
	rel, err := FileName(name)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, rel)
	if n := len(path) + tmpOverhead; n > maxPathBytes {
		return "", fmt.Errorf("%w: %s would be written to a path of %d bytes; the limit is %d. Use a shorter name or a shorter --cassettes path",
			ErrUnsafeName, ShortName(name), n, maxPathBytes)
	}
	return path, nil
}

// FileName maps a cassette name to a path relative to the cassette folder.
// A "/" in the name makes subfolders (test names like "TestX/case" keep
// their shape). Empty segments, "." and ".." and absolute names are refused;
// any other character outside [A-Za-z0-9._-] becomes "_", as does a dot
// that starts or ends a segment or follows another dot, and the segment
// gets a short hash of its original spelling, so distinct names never share
// a file (on a case-sensitive file system: "A" and "a" are different files
// only there). A segment ending in ".failed" also gets the hash, so no
// cassette's file is another's set-aside file (internal/base/setaside). The original
// name is kept inside the file.
func FileName(name string) (string, error) {
	if name == "" {
		return "", fmt.Errorf("%w: the name is empty", ErrUnsafeName)
	}
	if len(name) > maxNameBytes {
		return "", fmt.Errorf("%w: %s is longer than %d bytes", ErrUnsafeName, ShortName(name), maxNameBytes)
	}
	if strings.HasPrefix(name, "/") || strings.HasPrefix(name, `\`) || filepath.IsAbs(name) {
		return "", fmt.Errorf("%w: %s is absolute; use a relative name like \"suite/test\"", ErrUnsafeName, ShortName(name))
	}
	segments := strings.Split(name, "/")
	for i, seg := range segments {
		switch seg {
		case "":
			return "", fmt.Errorf("%w: %s has an empty path segment", ErrUnsafeName, ShortName(name))
		case ".", "..":
			return "", fmt.Errorf("%w: %s contains %q", ErrUnsafeName, ShortName(name), seg)
		}
		if base, n := samplename.Split(seg); n > 0 && i == len(segments)-1 {
			// Sample N of a cassette sits beside it as NAME@N.yaml.
			segments[i] = safeSegment(base) + "@" + strconv.Itoa(n)
			continue
		}
		segments[i] = safeSegment(seg)
	}
	return filepath.Join(segments...) + Extension, nil
}

// windowsReserved: a file name stem Windows keeps for a device (CON,
// PRN, AUX, NUL, COM0-9, LPT0-9, in any case).
func windowsReserved(stem string) bool {
	switch strings.ToUpper(strings.TrimRight(stem, " ")) {
	case "CON", "PRN", "AUX", "NUL":
		return true
	}
	s := strings.ToUpper(stem)
	return len(s) == 4 && (strings.HasPrefix(s, "COM") || strings.HasPrefix(s, "LPT")) && s[3] >= '0' && s[3] <= '9'
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
	if stem, _, _ := strings.Cut(out, "."); windowsReserved(stem) {
		// NUL, CON, COM1.txt… name devices on Windows, whatever follows
		// the first dot: a checkout there could not hold the file.
		out = stem + "_" + strings.TrimPrefix(out, stem)
		changed = true
	}
	if strings.HasSuffix(strings.ToLower(out), setaside.Stem) { // in any case: macOS folds it
		// "x.failed" would be the set-aside file of cassette "x" (failed.go).
		changed = true // the hash suffix below moves it off that name
	}
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
