// Writing a plan: the changed cassettes, and the side files only the
// removed recordings named.

package prune

import (
	"fmt"
	"slices"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/sidefile"
	"github.com/adkproxy/adkproxy/internal/wire"
)

// Apply writes each cassette plan changed in dir, atomically, refusing one
// that is a symbolic link (never written through), and removes the side
// files that only its removed recordings named. loaded is what Unused was
// given. The caller holds dir's recording lock. An error wraps
// cassettes.ErrWrite or names the symbolic link.
func Apply(dir string, loaded map[string]*cassettes.Cassette, plan Plan) error {
	for _, pc := range plan.Changed {
		if err := cassettes.CheckNoSymlinks(dir, pc.File); err != nil {
			return fmt.Errorf("prune: %w", err)
		}
		pc.Trajectories = wire.StepOf
		if err := cassettes.Save(pc.File, pc, nil); err != nil {
			return fmt.Errorf("prune: %w", err)
		}
		gone := slices.DeleteFunc(loaded[pc.Name].SideFiles(), func(n string) bool { return slices.Contains(pc.SideFiles(), n) })
		if _, err := sidefile.Remove(dir, pc.File, gone); err != nil {
			return fmt.Errorf("prune: %w", err)
		}
	}
	return nil
}
