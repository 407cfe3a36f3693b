//go:build !linux

package jinja_test

import "testing"

// limitAddressSpace: only Linux's is used (see rlimit_linux_test.go).
func limitAddressSpace(t *testing.T, bytes uint64) {}
