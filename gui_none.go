//go:build !desktop

package main

import (
	"io"

	"hermes-desktop/backend"
	"hermes-desktop/internal/cli"
)

// guiAvailable is false in builds without the desktop tag: this binary has
// no window toolkit linked in (plain `go build`, CGO off).
func guiAvailable() (bool, string) {
	return false, "this build has no GUI (build with 'make gui' for the window)"
}

// runGUI is never called when guiAvailable is false; it runs headless in
// case a caller skips the check.
func runGUI(cfg backend.Config, stdout, stderr io.Writer) int {
	return cli.RunHeadless(cfg, stdout, stderr)
}
