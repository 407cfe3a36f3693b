// Side files: large byte strings (uploaded files, Live audio) stored once
// beside their cassette, named by their SHA-256, and checked on every read.

package cassettes

// Layout: the cassette foo/bar.yaml keeps its side files in the folder
// foo/bar.files/, each named sha256-<64 hex digits>. A folder per cassette,
// not one shared by all: a cassette and its folder are copied, moved,
// reviewed and deleted together, two recordings never write into the same
// folder, and finding the files no longer used (RemoveSideFiles) needs only
// the one cassette. The same bytes within a cassette are stored once.

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// SideFileThreshold is the size from which a body that may go to a side
// file does: smaller ones stay in the cassette (as base64 when binary), so a
// small upload remains readable in one file; larger ones would make the
// YAML hard to read and slow to load.
const SideFileThreshold = 64 << 10

// sideFileSuffix ends a cassette's side-file folder name.
const sideFileSuffix = ".files"

// sideFilePrefix starts every side file's name; the hash's hex follows.
const sideFilePrefix = "sha256-"

// ErrSideFile: a side file a cassette names is missing, unreadable, or
// does not hold the bytes its name promises.
var ErrSideFile = errors.New("side file missing or damaged")

// SideFileDir is the folder holding the side files of the cassette at
// cassettePath: its path without ".yaml", plus ".files".
func SideFileDir(cassettePath string) string {
	return strings.TrimSuffix(cassettePath, Extension) + sideFileSuffix
}

// SideFileName is the content address of data: "sha256-" and the hex of its
// SHA-256.
func SideFileName(data []byte) string {
	sum := sha256.Sum256(data)
	return sideFilePrefix + hex.EncodeToString(sum[:])
}

// validSideFileName reports whether name is a content address, so a name
// read from a cassette can never lead outside the side-file folder.
func validSideFileName(name string) bool {
	h, ok := strings.CutPrefix(name, sideFilePrefix)
	if !ok || len(h) != 2*sha256.Size {
		return false
	}
	_, err := hex.DecodeString(h)
	return err == nil && strings.ToLower(h) == h
}

// WriteSideFile stores data beside the cassette at cassettePath, which lies
// below root (the cassettes folder), and returns its name. It is written
// atomically and once: a file already there with the right bytes is kept.
// Links below root are refused, like every write of this package.
func WriteSideFile(root, cassettePath string, data []byte) (string, error) {
	name := SideFileName(data)
	path := filepath.Join(SideFileDir(cassettePath), name)
	if err := CheckNoSymlinks(root, path); err != nil {
		return "", err
	}
	if old, err := readNoFollow(path); err == nil && bytes.Equal(old, data) {
		return name, nil
	}
	if err := WriteFileAtomic(path, data); err != nil {
		return "", fmt.Errorf("%w: side file %s: %v", ErrWrite, path, err)
	}
	return name, nil
}

// readSideFile reads the side file name of the cassette at cassettePath and
// checks that its SHA-256 is the one its name gives.
func readSideFile(cassettePath, name string) ([]byte, error) {
	if !validSideFileName(name) {
		return nil, fmt.Errorf("%w: %q is not a side file name (want sha256- and 64 lower-case hex digits)", ErrSideFile, name)
	}
	path := filepath.Join(SideFileDir(cassettePath), name)
	data, err := readNoFollow(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s does not exist; it holds bytes the cassette %s names: restore it (it is committed beside the cassette) or re-record", ErrSideFile, path, cassettePath)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrSideFile, path, err)
	}
	if got := SideFileName(data); got != name {
		return nil, fmt.Errorf("%w: %s holds bytes whose hash is %s, not the one its name gives; it was changed after recording: restore it or re-record", ErrSideFile, path, got)
	}
	return data, nil
}

// SideFiles lists the side files c refers to, sorted, each once.
func (c *Cassette) SideFiles() []string {
	var names []string
	for _, x := range c.Exchanges {
		for _, n := range []string{x.Request.BodyFile, x.Response.BodyFile} {
			if n != "" {
				names = append(names, n)
			}
		}
		if x.Live != nil {
			for _, f := range x.Live.Frames {
				for _, b := range f.Blobs {
					names = append(names, b.File)
				}
			}
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// RemoveSideFiles removes the named side files of the cassette at
// cassettePath (below root), and the folder once it is empty; it returns
// the paths removed. Callers name only files they know nothing refers to
// any more (prune: those of the recordings it removed that no remaining
// recording names), so a reference this package does not know of (Live
// frames) never loses its bytes.
func RemoveSideFiles(root, cassettePath string, names []string) ([]string, error) {
	dir := SideFileDir(cassettePath)
	if err := CheckNoSymlinks(root, dir); err != nil {
		return nil, err
	}
	var removed []string
	for _, name := range names {
		if !validSideFileName(name) {
			continue
		}
		p := filepath.Join(dir, name)
		err := os.Remove(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return removed, fmt.Errorf("%w: %v", ErrWrite, err)
		}
		removed = append(removed, p)
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) == 0 {
		os.Remove(dir) // tidiness: an empty folder has nothing to lose
	}
	syncDir(filepath.Dir(dir))
	return removed, nil
}
