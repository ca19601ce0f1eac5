//go:build !linux

package proc

import "errors"

// Getenv is Linux-only: macOS and Windows give no cheap, reliable view of
// another process's environment (and callers only need it where processes
// can be adopted, which is Linux).
func Getenv(pid int, key string) (string, bool, error) {
	return "", false, errors.New("proc: reading another process's environment is not supported here")
}
