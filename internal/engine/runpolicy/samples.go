// Samples: which samples of its cassettes a folder holds (record
// --samples K writes NAME@1..NAME@K), so replay can play them in turn.

package runpolicy

import (
	"slices"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/samplename"
)

// SamplesIn lists, in order, the sample numbers of the cassettes in dir
// (none when it holds no sample); a cassette's name is read from its file.
func SamplesIn(dir string) ([]int, error) {
	files, err := cassettes.Files(dir)
	if err != nil {
		return nil, err
	}
	seen := map[int]bool{}
	for _, f := range files {
		name, ok, err := cassettes.StoredName(dir, f)
		if err != nil {
			return nil, err
		}
		if !ok {
			name = cassettes.NameFromPath(dir, f)
		}
		if _, n := samplename.Split(name); n > 0 {
			seen[n] = true
		}
	}
	out := make([]int, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	slices.Sort(out)
	return out, nil
}
