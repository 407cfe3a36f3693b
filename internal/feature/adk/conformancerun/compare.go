// Judging the session: package conformance's comparison, worded for a report.

package conformancerun

import (
	"fmt"

	"github.com/adkproxy/adkproxy/internal/base/adkapi"
	"github.com/adkproxy/adkproxy/internal/data/conformance"
)

// compareSession returns the first difference between the server's session
// and the recorded one as a sentence, or "" when they are equal. ignore
// are event fields (camelCase paths) left out on both sides.
func compareSession(want *conformance.Session, got *adkapi.Session, ignore []string) string {
	diff, err := conformance.CompareSession(got.Raw, want, conformance.CompareOptions{Ignore: ignore})
	switch {
	case err != nil:
		return fmt.Sprintf("the server's session cannot be compared: %v", err)
	case diff == nil:
		return ""
	}
	return diff.String()
}
