package update

import (
	"path/filepath"
	"strings"
)

// bundleOf returns the .app directory when exe is a bundle's main binary
// (X.app/Contents/MacOS/exe): an update replaces the whole bundle.
func bundleOf(exe string) string {
	macos := filepath.Dir(exe)
	contents := filepath.Dir(macos)
	app := filepath.Dir(contents)
	if filepath.Base(macos) == "MacOS" && filepath.Base(contents) == "Contents" && strings.HasSuffix(app, ".app") {
		return app
	}
	return ""
}

// packageOwner: no package manager is asked on macOS (Homebrew casks
// write no marker, so they are left alone anyway).
func packageOwner(string) string { return "" }
