// What the commands that read a cassette folder share: the required
// --cassettes argument, and output to stdout or atomically to --out.

package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/urfave/cli/v2"
)

// cassettesDir returns the required --cassettes folder of record and
// replay, whose arguments are the wrapped command.
func cassettesDir(c *cli.Context) (string, error) {
	dir := c.String("cassettes")
	if dir == "" {
		return "", usageErrorf("%s: --cassettes DIR is required (or set ADKPROXY_CASSETTES)", c.Command.Name)
	}
	return dir, nil
}

// loadCassettes reads the cassettes a reading command (ls, score, export)
// was pointed at, by --cassettes or by its one argument: a folder or one
// cassette file. dir is the folder their files are relative to.
func loadCassettes(c *cli.Context) (dir string, loaded map[string]*cassettes.Cassette, err error) {
	dir, loaded, restoreGC, err := loadCassettesPaced(c)
	restoreGC()
	return dir, loaded, err
}

// loadCassettesPaced is loadCassettes leaving garbage collection paced as
// while loading (loadingGC) until the caller calls restoreGC, for a
// command that reads what it loaded once and is done (ls).
func loadCassettesPaced(c *cli.Context) (dir string, loaded map[string]*cassettes.Cassette, restoreGC func(), err error) {
	restoreGC = func() {}
	path := c.String("cassettes")
	switch args := c.Args().Slice(); {
	case len(args) > 1:
		return "", nil, restoreGC, usageErrorf("%s takes one folder or cassette file, got %d arguments: %q", c.Command.Name, len(args), args)
	case len(args) == 1 && path != "" && path != os.Getenv(envFor("cassettes")[0]) && filepath.Clean(path) != filepath.Clean(args[0]):
		return "", nil, restoreGC, usageErrorf("%s: --cassettes %s and the argument %s name different cassettes; give one", c.Command.Name, path, args[0])
	case len(args) == 1:
		path = args[0] // the argument wins over ADKPROXY_CASSETTES
	}
	if path == "" {
		return "", nil, restoreGC, usageErrorf("%s: --cassettes PATH is required (a folder or one cassette file; or 'adkproxy %s PATH', or set ADKPROXY_CASSETTES)", c.Command.Name, c.Command.Name)
	}
	restoreGC = loadingGC(path) // gc.go
	dir, loaded, err = cassettes.LoadPath(path)
	if err != nil {
		restoreGC()
		return "", nil, func() {}, withCode(exitDataErr, err) // every failure here is an unreadable cassette or folder
	}
	return dir, loaded, restoreGC, nil
}

// writeOutput sends a command's output to stdout, or atomically to the
// --out file (exit 73 when that cannot be written).
func writeOutput(c *cli.Context, path string, data []byte) error {
	if path == "" {
		_, err := c.App.Writer.Write(data)
		return err
	}
	if err := cassettes.WriteFileAtomic(path, data); err != nil {
		return withCode(exitCantWrite, fmt.Errorf("--out: %w", err))
	}
	return nil
}
