// Package clilog builds the logger the command line writes to stderr: text
// for people, where a multi-line value (a diff in a "detail") prints as
// indented lines under its record instead of one escaped string, or JSON
// for machines, one record a line with every value escaped.
package clilog
