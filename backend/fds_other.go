//go:build !linux

package backend

// closeOnExecInherited is Linux-only: on macOS Go already marks its own fds
// close-on-exec and there is no cheap, reliable list of inherited fds to
// walk; Windows handles are not inherited unless asked for.
func closeOnExecInherited() error { return nil }
