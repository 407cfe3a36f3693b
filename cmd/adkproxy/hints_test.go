package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
)

// TestRedactValuesAreNamedByTheirFlag: a --redact value about to leak is
// named as the user gave it, by the flag and its position.
func TestRedactValuesAreNamedByTheirFlag(t *testing.T) {
	t.Parallel()
	const second = "second-secret-value"
	err := redactorFor([]string{"first-secret-value", second}).Scan([]byte("x: " + second + "\n"))
	if !errors.Is(err, cassettes.ErrSecretLeak) || !strings.Contains(err.Error(), "--redact value #2") || strings.Contains(err.Error(), second) {
		t.Errorf("Scan = %v; want the leak named --redact value #2", err)
	}
}
