// Reading what a command was pointed at: a folder of cassettes or one
// cassette file.

package cassettes

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// LoadPath reads the cassettes at path: every cassette below it when it is
// a folder (see LoadDir), or the one cassette when it is a cassette file.
// dir is the folder the cassettes' files are relative to: path itself, or
// the file's folder.
func LoadPath(path string) (dir string, loaded map[string]*Cassette, err error) {
	info, err := os.Stat(path)
	if err != nil || info.IsDir() {
		loaded, err := LoadDir(path) // says what is wrong with a missing folder
		return path, loaded, err
	}
	if !strings.HasSuffix(path, Extension) {
		return "", nil, fmt.Errorf("%w: %s is neither a cassette folder nor a cassette file (*%s)", ErrNotFound, path, Extension)
	}
	c, err := Load(path)
	if err != nil {
		return "", nil, err
	}
	dir = filepath.Dir(path)
	if c.Name == "" {
		c.Name = NameFromPath(dir, path)
	}
	return dir, map[string]*Cassette{c.Name: c}, nil
}
