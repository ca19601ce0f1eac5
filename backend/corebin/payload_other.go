//go:build !(linux && desktop)

package corebin

import "io/fs"

// payload is nil: the plain build is the core itself. The Windows desktop
// build loads WebView2 at run time rather than linking it, so it starts as
// fast as a plain one; the macOS one links system frameworks from the dyld
// shared cache, not measured here (no Mac), so it keeps starting itself.
func payload() fs.FS { return nil }
