// Package runpolicy holds the rules of one proxy run that the CLI and
// adkproxytest share, so that both judge a run alike: when a run that no
// request reached fails, which runs take the cassettes folder's recording
// lock, and the --report file's reading and writing.
package runpolicy
