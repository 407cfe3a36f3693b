// An MCP client lists the server's tools (tools/list) to declare them to
// the model call it is about to make: the listing belongs to that step,
// not to the step whose tool call happens to be waiting (or to none).
// While recording, a listing is filed by the tool rule first and moved to
// the next model call of its cassette when that call is placed; the
// journal keeps the first filing, so a run cut short files it there.

package proxy

import (
	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/wire"
)

// awaitStep notes a tools/list exchange being recorded, to be filed with
// the next model call.
func (t *tape) awaitStep(x *cassettes.Exchange) {
	if c, ok := wire.MCPRequestOf(&x.Request); !ok || c.Method != "tools/list" {
		return
	}
	t.mu.Lock()
	t.listings = append(t.listings, x)
	t.mu.Unlock()
}

// fileListings files the listings recorded since the last model call
// with the model call placed at p.
func (t *tape) fileListings(p cassettes.Place) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, x := range t.listings {
		at := p
		x.Place = &at
		t.dirty = true
	}
	t.listings = t.listings[:0]
}
