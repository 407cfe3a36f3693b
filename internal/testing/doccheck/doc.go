// Package doccheck holds no code: its tests keep the documentation in
// README.md and docs/ true to the repository. Every relative link must lead
// to a file and heading that exist, and every flag of every adkproxy command
// must be in docs/cli.md with its environment variable, and every Go
// package must have one package comment that names no .go file, so that moving
// documentation around or adding a flag cannot leave a reader at a dead end.
package doccheck
