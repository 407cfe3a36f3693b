//go:build race

package jinja_test

const raceEnabled = true
