// Refusing a cassette that cannot fit: under an address-space limit
// (ulimit -v) a cassette whose loading would run out of memory is refused
// naming the file, instead of the Go runtime dying mid-load.

package cassettes

import "fmt"

// loadAddressSpace is the address space loading takes per byte of the
// file at its peak: about 2 to 3.3 bytes of heap per byte of a large body
// (TestLoadingALargeBodyTakesAboutItsSize), and the runtime reserves about
// twice its heap, with a margin.
const loadAddressSpace = 8

// checkFits returns an error naming path when loading size bytes would not
// fit in what the address-space limit leaves.
func checkFits(path string, size int64) error {
	left, limited := addressSpaceLeft()
	if !limited || size*loadAddressSpace <= left {
		return nil
	}
	return &FormatError{File: path, Err: ErrCorrupt, Msg: fmt.Sprintf(
		"it is %d MiB, and loading it needs about %d MiB of address space, more than the limit (ulimit -v) leaves (%d MiB); raise the limit or split the cassette",
		size>>20, size*loadAddressSpace>>20, max(left, 0)>>20)}
}
