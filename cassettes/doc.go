// Package cassettes holds adkproxy's recorded traffic: the Exchange type that
// every other package passes around, the YAML cassette format that stores it,
// atomic loading and saving, cassette names, and secret redaction.
//
// The package knows nothing about proxying or matching; it is data plus the
// rules for putting that data on disk safely.
package cassettes
