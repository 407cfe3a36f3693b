//go:build !unix

package safefile

// NoFollow: without O_NOFOLLOW, the Lstat checks and O_EXCL creation in
// nofollow.go are what keep writes off symbolic links.
const NoFollow = 0
