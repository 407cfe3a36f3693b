// Package sidefile keeps large byte strings (uploaded files, Live audio)
// once beside their cassette, named by their SHA-256, and checks them on
// every read. Package cassettes reads them when it loads a cassette; proxy
// writes them while recording, and prune removes those no recording names.
package sidefile

// Layout: the cassette foo/bar.yaml keeps its side files in the folder
// foo/bar.files/, each named sha256-<64 hex digits>. A folder per cassette,
// not one shared by all: a cassette and its folder are copied, moved,
// reviewed and deleted together, two recordings never write into the same
// folder, and finding the files no longer used (Remove) needs only
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
	"strings"

	"github.com/adkproxy/adkproxy/internal/base/safefile"
)

// Threshold is the size from which a body that may go to a side
// file does: smaller ones stay in the cassette (as base64 when binary), so a
// small upload remains readable in one file; larger ones would make the
// YAML hard to read and slow to load.
const Threshold = 64 << 10

// folderSuffix ends a cassette's side-file folder name, which is the
// cassette's path with it in place of cassetteExtension.
const (
	folderSuffix      = ".files"
	cassetteExtension = ".yaml" // cassettes.Extension
)

// namePrefix starts every side file's name; the hash's hex follows.
const namePrefix = "sha256-"

// ErrDamaged: a side file a cassette names is missing, unreadable, or
// does not hold the bytes its name promises.
var ErrDamaged = errors.New("side file missing or damaged")

// Dir is the folder holding the side files of the cassette at
// cassettePath: its path without ".yaml", plus ".files".
func Dir(cassettePath string) string {
	return strings.TrimSuffix(cassettePath, cassetteExtension) + folderSuffix
}

// Name is the content address of data: "sha256-" and the hex of its
// SHA-256.
func Name(data []byte) string {
	sum := sha256.Sum256(data)
	return namePrefix + hex.EncodeToString(sum[:])
}

// valid reports whether name is a content address, so a name
// read from a cassette can never lead outside the side-file folder.
func valid(name string) bool {
	h, ok := strings.CutPrefix(name, namePrefix)
	if !ok || len(h) != 2*sha256.Size {
		return false
	}
	_, err := hex.DecodeString(h)
	return err == nil && strings.ToLower(h) == h
}

// Write stores data beside the cassette at cassettePath, which lies
// below root (the cassettes folder), and returns its name. It is written
// atomically and once: a file already there with the right bytes is kept.
// Links below root are refused, like every write of this package.
func Write(root, cassettePath string, data []byte) (string, error) {
	name := Name(data)
	path := filepath.Join(Dir(cassettePath), name)
	if err := safefile.CheckNoSymlinks(root, path); err != nil {
		return "", err
	}
	if old, err := safefile.ReadNoFollow(path); err == nil && bytes.Equal(old, data) {
		return name, nil
	}
	if err := safefile.WriteFileAtomic(path, data); err != nil {
		return "", fmt.Errorf("%w: side file %s: %v", safefile.ErrWrite, path, err)
	}
	return name, nil
}

// Read reads the side file name of the cassette at cassettePath and
// checks that its SHA-256 is the one its name gives.
func Read(cassettePath, name string) ([]byte, error) {
	if !valid(name) {
		return nil, fmt.Errorf("%w: %q is not a side file name (want sha256- and 64 lower-case hex digits)", ErrDamaged, name)
	}
	path := filepath.Join(Dir(cassettePath), name)
	data, err := safefile.ReadNoFollow(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s does not exist; it holds bytes the cassette %s names: restore it (it is committed beside the cassette) or re-record", ErrDamaged, path, cassettePath)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrDamaged, path, err)
	}
	if got := Name(data); got != name {
		return nil, fmt.Errorf("%w: %s holds bytes whose hash is %s, not the one its name gives; it was changed after recording: restore it or re-record", ErrDamaged, path, got)
	}
	return data, nil
}

// Remove removes the named side files of the cassette at
// cassettePath (below root), and the folder once it is empty; it returns
// the paths removed. Callers name only files they know nothing refers to
// any more (prune: those of the recordings it removed that no remaining
// recording names), so a reference this package does not know of (Live
// frames) never loses its bytes.
func Remove(root, cassettePath string, names []string) ([]string, error) {
	dir := Dir(cassettePath)
	if err := safefile.CheckNoSymlinks(root, dir); err != nil {
		return nil, err
	}
	var removed []string
	for _, name := range names {
		if !valid(name) {
			continue
		}
		p := filepath.Join(dir, name)
		err := os.Remove(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return removed, fmt.Errorf("%w: %v", safefile.ErrWrite, err)
		}
		removed = append(removed, p)
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) == 0 {
		os.Remove(dir) // tidiness: an empty folder has nothing to lose
	}
	safefile.SyncDir(filepath.Dir(dir))
	return removed, nil
}
