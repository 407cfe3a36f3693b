// Package e2e holds end-to-end tests that drive adkproxy with official clients in other languages.
package e2e
