// Scanning what arrives in pieces.

package cassettes

import (
	"errors"
	"io"
	"testing"
)

// TestScanStreamFindsASecretSplitBetweenWrites: the scan of pieces finds a
// secret that no single piece holds, and passes clean pieces and the
// writer's own error through.
func TestScanStreamFindsASecretSplitBetweenWrites(t *testing.T) {
	r := NewRedactor("s3cret-value-42")
	pieces := func(ps ...string) func(io.Writer) error {
		return func(w io.Writer) error {
			for _, p := range ps {
				if _, err := io.WriteString(w, p); err != nil {
					return err
				}
			}
			return nil
		}
	}
	if err := r.ScanStream(pieces(`{"echo":"s3cr`, `et-val`, `ue-42"}`)); !errors.Is(err, ErrSecretLeak) {
		t.Errorf("split secret: %v; want ErrSecretLeak", err)
	}
	if err := r.ScanStream(pieces(`{"echo":"s3cr`, `et"}`)); err != nil {
		t.Errorf("no secret: %v", err)
	}
	failed := errors.New("disk")
	if err := r.ScanStream(func(io.Writer) error { return failed }); err != failed {
		t.Errorf("the writer's error: %v; want it as it is", err)
	}
}
