//go:build linux && desktop && !webkit2_41

package update

// The Linux desktop build without the webkit2_41 tag: Wails v2's default,
// WebKitGTK 4.0.
const buildFlavour = FlavourWebKit40
