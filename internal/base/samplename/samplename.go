// Package samplename is the rule naming the samples of a cassette: sample
// N of cassette NAME is the cassette NAME@N (record --samples K writes
// NAME@1 .. NAME@K), so ls lists every sample and a cassette without the
// suffix is read as it always was. docs/cassette-format.md states it.
package samplename

import (
	"strconv"
	"strings"
)

// Max is the largest sample number.
const Max = 9999

// Name is the name of sample n of cassette base; n < 1 gives base.
func Name(base string, n int) string {
	if n < 1 {
		return base
	}
	return base + "@" + strconv.Itoa(n)
}

// Split returns the cassette and sample number of a sample's name; n is 0
// for a name that is no sample (no "@N" at its end, N a number 1..Max
// written without a leading zero).
func Split(name string) (base string, n int) {
	i := strings.LastIndexByte(name, '@')
	if i <= 0 || i == len(name)-1 || name[i-1] == '/' {
		return name, 0
	}
	digits := name[i+1:]
	if digits[0] == '0' || len(digits) > len(strconv.Itoa(Max)) {
		return name, 0
	}
	for _, r := range digits {
		if r < '0' || r > '9' {
			return name, 0
		}
	}
	n, _ = strconv.Atoi(digits)
	if n > Max {
		return name, 0
	}
	return name[:i], n
}

// Base is the cassette a name is a sample of, or the name itself.
func Base(name string) string {
	base, _ := Split(name)
	return base
}
