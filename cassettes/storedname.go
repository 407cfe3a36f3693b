// StoredName: which cassette name a file (or its journal) already holds, read from its top.

package cassettes

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"

	"gopkg.in/yaml.v3"
)

// StoredName is the name of the cassette already at path below dir: its
// name field (or, without one, the name its path gives), or for a
// cassette only a journal holds so far, the journal's. ok is false when
// neither file exists, or the YAML cannot be read at all (recording over
// it replaces it, as before). Only the top of the YAML is read: the name
// comes before the sessions.
func StoredName(dir, path string) (name string, ok bool, err error) {
	f, err := os.OpenFile(path, os.O_RDONLY|oNoFollow, 0)
	if errors.Is(err, fs.ErrNotExist) {
		j, err := readJournal(path)
		if err != nil || j == nil || j.name == "" {
			return "", false, err
		}
		return j.name, true, nil
	}
	if err != nil {
		return "", false, err
	}
	defer f.Close()
	var head bytes.Buffer
	br := bufio.NewReader(io.LimitReader(f, 64<<10))
	for {
		line, err := br.ReadBytes('\n')
		if isBodyKey(line) {
			break
		}
		head.Write(line)
		if err != nil {
			break
		}
	}
	var top struct {
		Name string `yaml:"name"`
	}
	if yaml.Unmarshal(head.Bytes(), &top) != nil {
		c, err := Load(path) // an unusual layout: read it all
		if err != nil {
			return "", false, nil // unreadable: no name to protect
		}
		top.Name = c.Name
	}
	if top.Name == "" {
		top.Name = NameFromPath(dir, path)
	}
	return top.Name, true, nil
}

// isBodyKey reports whether line starts a top-level key after the name.
func isBodyKey(line []byte) bool {
	for _, k := range []string{"sessions:", "interactions:", "other:"} {
		if bytes.HasPrefix(line, []byte(k)) {
			return true
		}
	}
	return false
}
