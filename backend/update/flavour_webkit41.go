//go:build linux && webkit2_41

package update

// The webkit2_41 tag: Wails links WebKitGTK 4.1 (its `#cgo webkit2_41
// pkg-config: webkit2gtk-4.1` lines).
const buildFlavour = FlavourWebKit41
