// The side files a cassette names (internal/base/sidefile keeps them):
// read back when it is loaded, listed for prune.

package cassettes

import "slices"

// SideFiles lists the side files c refers to, sorted, each once.
func (c *Cassette) SideFiles() []string {
	var names []string
	for _, x := range c.Exchanges {
		for _, n := range []string{x.Request.BodyFile, x.Response.BodyFile} {
			if n != "" {
				names = append(names, n)
			}
		}
		if x.Live != nil {
			for _, f := range x.Live.Frames {
				for _, b := range f.Blobs {
					names = append(names, b.File)
				}
			}
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}
