// Problems: corpus entries that could not be converted, reported with
// their file and line instead of being dropped without a word.

package conformance

import "fmt"

// Problem is an entry Import or Export could not convert; it is not in
// the output, and the command that hit it fails (exit status 65).
type Problem struct {
	File string
	Line int
	Msg  string
}

func (p Problem) String() string {
	if p.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Msg)
	}
	return fmt.Sprintf("%s: %s", p.File, p.Msg)
}

// problemOf turns a conversion error into a Problem.
func problemOf(file string, line int, err error) Problem {
	if fe, ok := err.(*FileError); ok {
		return Problem{File: fe.File, Line: fe.Line, Msg: fe.Msg}
	}
	return Problem{File: file, Line: line, Msg: err.Error()}
}
