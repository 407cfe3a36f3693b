// Package clilog builds the logger the command line writes to stderr:
// plain lines like adkproxy's others for a terminal, logfmt text, or JSON
// for machines, one record a line with every value escaped. In plain and
// text a multi-line value (a diff in a "detail") prints as indented lines
// under its record instead of one escaped string.
package clilog
