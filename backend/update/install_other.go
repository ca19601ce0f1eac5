//go:build !linux && !darwin

package update

// bundleOf: only macOS has application bundles.
func bundleOf(string) string { return "" }

// packageOwner: no package manager is asked here (an MSI or winget install
// writes no marker, so it is left alone anyway).
func packageOwner(string) string { return "" }
