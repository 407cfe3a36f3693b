// Package userfiles holds the test that every reader of a file from a
// user's tree follows the regular-file rule (internal/base/userfile).
package userfiles
