package numruns

import (
	"fmt"
	"slices"
	"testing"
)

func TestRepeat(t *testing.T) {
	t.Parallel()
	nth := func(s string, k int) string { return fmt.Sprintf("%s#%d", s, k) }
	got, err := Repeat([]string{"a", "b"}, 3, nth)
	if want := []string{"a#1", "a#2", "a#3", "b#1", "b#2", "b#3"}; err != nil || !slices.Equal(got, want) {
		t.Errorf("3 runs: %q, %v; want %q", got, err, want)
	}
	if got, err := Repeat([]string{"a"}, 1, nth); err != nil || !slices.Equal(got, []string{"a"}) {
		t.Errorf("1 run: %q, %v; want the items as they are", got, err)
	}
	for _, runs := range []int{0, -2} {
		if _, err := Repeat([]string{"a"}, runs, nth); err == nil || err.Error() != fmt.Sprintf("--num-runs %d: want 1 or more", runs) {
			t.Errorf("%d runs: %v", runs, err)
		}
	}
}
