// Where the CA lives when the user does not say.

package ca

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
)

// DirEnv overrides the default folder (the CLI's --ca-dir flag reads it too).
const DirEnv = "ADKPROXY_CA_DIR"

// DefaultDir is the per-user CA folder:
//
//   - $ADKPROXY_CA_DIR when set;
//   - on Windows, %LOCALAPPDATA%\adkproxy (local, not roaming: a private
//     key has no business following the user to other machines);
//   - elsewhere, macOS included, $XDG_DATA_HOME/adkproxy, else
//     ~/.local/share/adkproxy: one predictable place for a CLI tool's data,
//     the same on every Unix, rather than ~/Library/Application Support.
func DefaultDir() (string, error) {
	if d := os.Getenv(DirEnv); d != "" {
		return d, nil
	}
	if runtime.GOOS == "windows" {
		if d := os.Getenv("LOCALAPPDATA"); d != "" {
			return filepath.Join(d, "adkproxy"), nil
		}
	}
	if d := os.Getenv("XDG_DATA_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "adkproxy"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return "", errors.New("cannot find a folder for the CA: neither $XDG_DATA_HOME nor $HOME is set; give one with --ca-dir or " + DirEnv)
	}
	return filepath.Join(home, ".local", "share", "adkproxy"), nil
}
