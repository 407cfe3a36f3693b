// Refusing a cassette that cannot fit: a cassette whose loading would run
// out of memory, under an address-space limit (ulimit -v) or in what the
// machine or its memory cgroup has left, is refused naming the file,
// instead of the Go runtime dying (or the kernel killing it) mid-load.

package cassettes

import "fmt"

// loadAddressSpace is the address space loading takes per byte of the
// file at its peak: about 2 bytes of heap per byte of the file
// (TestLoadingALargeBodyTakesAboutItsSize), and the runtime reserves about
// twice its heap, with a margin.
const loadAddressSpace = 8

// loadResident is the memory loading takes per byte of the file at its
// peak, the bound `make bench` holds (docs/guarantees.md).
const loadResident = 2

// checkFits returns an error naming path when loading size bytes would not
// fit in what the address-space limit leaves, or in the memory the
// machine (or the process's memory cgroup) has available.
func checkFits(path string, size int64) error {
	addressSpace, limited := addressSpaceLeft()
	memory, where, known := memoryLeft()
	return fits(path, size, addressSpace, limited, memory, where, known)
}

// fits is checkFits once what is left is known.
func fits(path string, size, addressSpace int64, limited bool, memory int64, where string, known bool) error {
	if left := addressSpace; limited && size*loadAddressSpace > left {
		return &FormatError{File: path, Err: ErrCorrupt, Msg: fmt.Sprintf(
			"it is %d MiB, and loading it needs about %d MiB of address space, more than the limit (ulimit -v) leaves (%d MiB); raise the limit or split the cassette",
			size>>20, size*loadAddressSpace>>20, max(left, 0)>>20)}
	}
	if left := memory; known && size*loadResident > left {
		return &FormatError{File: path, Err: ErrCorrupt, Msg: fmt.Sprintf(
			"it is %d MiB, and loading it needs about %d MiB of memory, more than %s has available (%d MiB); free memory, raise the limit or split the cassette",
			size>>20, size*loadResident>>20, where, max(left, 0)>>20)}
	}
	return nil
}
