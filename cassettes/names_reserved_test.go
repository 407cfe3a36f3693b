package cassettes

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestWindowsReservedNamesAreMapped: names Windows keeps for devices (NUL,
// CON, aux, COM1.txt, lpt9, as a file or a folder) become other files, as
// unsafe names do, so a Windows checkout can hold every cassette; names
// that merely start alike are kept.
func TestWindowsReservedNamesAreMapped(t *testing.T) {
	reserved := map[string]bool{"CON": true, "PRN": true, "AUX": true, "NUL": true}
	for i := '0'; i <= '9'; i++ {
		reserved["COM"+string(i)], reserved["LPT"+string(i)] = true, true
	}
	seen := map[string]string{}
	for _, name := range []string{"NUL", "nul", "CON", "aux", "Aux", "COM1.txt", "com1", "lpt9", "PRN.log", "suite/nul/x", "con/TestA", "NUL.yaml"} {
		file, err := FileName(name)
		if err != nil {
			t.Fatalf("FileName(%q): %v", name, err)
		}
		for _, seg := range strings.Split(filepath.ToSlash(file), "/") {
			stem, _, _ := strings.Cut(seg, ".")
			if reserved[strings.ToUpper(stem)] {
				t.Errorf("FileName(%q) = %q: %q is a device name on Windows", name, file, seg)
			}
		}
		if other, ok := seen[file]; ok {
			t.Errorf("%q and %q share the file %s", name, other, file)
		}
		seen[file] = name
	}
	for name, want := range map[string]string{"console": "console.yaml", "nullable": "nullable.yaml", "com10": "com10.yaml", "lpt": "lpt.yaml", "auxiliary/x": filepath.Join("auxiliary", "x.yaml")} {
		if got, err := FileName(name); err != nil || got != want {
			t.Errorf("FileName(%q) = %q, %v; want %q", name, got, err, want)
		}
	}
}
