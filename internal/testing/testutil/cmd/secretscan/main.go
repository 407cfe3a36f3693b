// Command secretscan ends `make test`: it scans every file the tests wrote
// under a folder for every secret the tests used, in plain, base64-, URL-
// and JSON-escaped form, with the same scanner that guards cassette writes.
// It exits 1 and names the file on any hit.
package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: secretscan DIR")
		os.Exit(2)
	}
	scanner := cassettes.NewRedactor(testutil.Secrets()...)
	files, hits := 0, 0
	err := filepath.WalkDir(os.Args[1], func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		if err := scanner.Scan(data); err != nil {
			hits++
			fmt.Fprintf(os.Stderr, "secretscan: %s: %v\n", path, err)
		}
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		fmt.Fprintln(os.Stderr, "secretscan:", err)
		os.Exit(2)
	}
	fmt.Printf("secretscan: %d file(s) written by tests, %d secret(s) checked in every encoding, %d hit(s)\n", files, len(testutil.Secrets()), hits)
	if hits > 0 {
		os.Exit(1)
	}
}
