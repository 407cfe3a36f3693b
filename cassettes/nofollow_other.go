//go:build !unix

package cassettes

// oNoFollow: without O_NOFOLLOW, the Lstat checks and O_EXCL creation in
// nofollow.go are what keep writes off symbolic links.
const oNoFollow = 0
