//go:build !darwin

package proc

// sameStart compares start markers: on Linux and Windows they are exact
// numbers, so equal strings are the same start.
func sameStart(a, b string) bool { return a == b }

// hermesMarker: Hermes uses our form on Linux and Windows.
func hermesMarker(start string) string { return start }
