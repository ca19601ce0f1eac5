//go:build !desktop

package main

import (
	"hermes-desktop/app/lifecycle"
	"hermes-desktop/backend"
)

// guiAvailable is false in builds without the desktop tag: this binary has
// no window toolkit linked in (plain `go build`, CGO off).
func guiAvailable() (bool, string) {
	return false, "this build has no GUI (build with 'make gui' for the window)"
}

// newWindow is nil in builds without the desktop tag: the launcher runs
// headless.
var newWindow func(l *backend.Launcher, self string) lifecycle.Window
