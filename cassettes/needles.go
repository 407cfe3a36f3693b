// One pass over a body for every stored form of every secret: which forms
// occur at all. Scrubbing and scanning then look only for those (a body
// with no secret costs one pass, not one per form: three secrets have
// some 180 forms).

package cassettes

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"slices"
)

// keyLen is how many leading bytes of a form the index keys it by.
const keyLen = 4

// filterBits sizes the bit filter on hashed keys: 8 KiB, within L1.
const filterBits = 1 << 16

// needleIndex finds which needles occur in a body in one pass: at each
// position, the next keyLen bytes are hashed and tested against a bit
// filter; only on a hit are the needles with those leading bytes compared.
type needleIndex struct {
	filter  [filterBits / 64]uint64
	byKey   map[uint32][]int // needles by their leading keyLen bytes
	short   []int            // needles shorter than keyLen, each searched for alone
	longest int              // the longest needle's length
}

func keyHash(k uint32) uint32 { return (k * 0x9E3779B1) >> (32 - 16) }

func newNeedleIndex(needles []needle) *needleIndex {
	x := &needleIndex{byKey: map[uint32][]int{}}
	for i, n := range needles {
		x.longest = max(x.longest, len(n.form))
		if len(n.form) < keyLen {
			x.short = append(x.short, i)
			continue
		}
		k := binary.LittleEndian.Uint32(n.form)
		h := keyHash(k)
		x.filter[h/64] |= 1 << (h % 64)
		x.byKey[k] = append(x.byKey[k], i)
	}
	return x
}

// match is a needle found at a position of a body.
type match struct{ pos, needle int }

// matches lists every occurrence of every needle in b (placeholders
// included: the callers skip those), by position then needle.
func (x *needleIndex) matches(needles []needle, b []byte) []match {
	var found []match
	for p := 0; p+keyLen <= len(b); p++ {
		k := binary.LittleEndian.Uint32(b[p:])
		h := keyHash(k)
		if x.filter[h/64]&(1<<(h%64)) == 0 {
			continue
		}
		for _, i := range x.byKey[k] {
			if bytes.HasPrefix(b[p:], needles[i].form) {
				found = append(found, match{p, i})
			}
		}
	}
	if len(x.short) > 0 {
		for _, i := range x.short {
			for p := 0; ; p++ {
				j := bytes.Index(b[p:], needles[i].form)
				if j < 0 {
					break
				}
				p += j
				found = append(found, match{p, i})
			}
		}
		slices.SortFunc(found, func(a, b match) int { return cmp.Or(a.pos-b.pos, a.needle-b.needle) })
	}
	return found
}

// span is a range of a body's bytes that are a placeholder, or what a
// later replacement left of one.
type span struct{ start, end int }

// addSpan appends [start, end) to sorted spans, merging it with the last.
func addSpan(spans []span, start, end int) []span {
	if start >= end {
		return spans
	}
	if n := len(spans); n > 0 && spans[n-1].end >= start {
		spans[n-1].end = max(spans[n-1].end, end)
		return spans
	}
	return append(spans, span{start, end})
}

// presentAround reports which needles occur in b starting where they would
// overlap one of spans: a replacement can make a form appear there only.
func (x *needleIndex) presentAround(needles []needle, b []byte, spans []span, longest int) []bool {
	found := make([]bool, len(needles))
	next := 0 // positions before it were checked
	for _, s := range spans {
		for p := max(next, s.start-longest+1); p < s.end && p < len(b); p++ {
			for _, i := range x.short {
				found[i] = found[i] || bytes.HasPrefix(b[p:], needles[i].form)
			}
			if p+keyLen > len(b) {
				continue
			}
			k := binary.LittleEndian.Uint32(b[p:])
			h := keyHash(k)
			if x.filter[h/64]&(1<<(h%64)) == 0 {
				continue
			}
			for _, i := range x.byKey[k] {
				found[i] = found[i] || bytes.HasPrefix(b[p:], needles[i].form)
			}
		}
		next = max(next, s.end)
	}
	return found
}
