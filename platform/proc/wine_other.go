//go:build !windows

package proc

// UnderWine is false off Windows: Wine runs Windows programs only.
func UnderWine() bool { return false }
