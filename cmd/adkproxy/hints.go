// What the CLI adds to the library's messages: the commands and flags that
// mend what they report, which the library does not know.

package main

import (
	"errors"
	"fmt"

	"github.com/adkproxy/adkproxy/cassettes"
)

// withHint ends err's message with the command that mends it, if any.
func withHint(err error) error {
	var missing *cassettes.MissingFolderError
	if errors.As(err, &missing) {
		return fmt.Errorf("%w; record into it first with 'adkproxy record --cassettes %s -- COMMAND'", err, missing.Dir)
	}
	return err
}

// redactorFor scrubs the --redact values, naming each by its flag.
func redactorFor(values []string) *cassettes.Redactor {
	r := cassettes.NewRedactor()
	for i, v := range values {
		r.Add(v, fmt.Sprintf("--redact value #%d", i+1))
	}
	return r
}
