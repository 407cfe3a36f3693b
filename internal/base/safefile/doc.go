// Package safefile writes and reads the files of a cassettes folder
// (cassettes, journals, side files, locks) by one rule: never through a
// symbolic link below the folder, only regular files read, every write
// atomic or synced. It sits below cassettes so that the side files and
// the journal, which cassettes reads and proxy writes, share it.
package safefile
