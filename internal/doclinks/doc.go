// Package doclinks holds no code: its test checks that every relative link
// in README.md and docs/ leads to a file of the repository and, for a link
// to a heading, to a heading that exists, so that moving documentation
// around cannot leave a reader at a dead end.
package doclinks
