//go:build !unix

package proxy_test

import "errors"

func mkfifo(string) error { return errors.New("no FIFOs here") }
