//go:build !windows

package testbin

import "testing"

// exeSuffix ends an executable's name.
const exeSuffix = ""

// prebuilt has no binary to offer: tests here build their own (Path), as
// a Go toolchain is always at hand where they run.
func prebuilt() (string, bool) { return "", false }

// buildFailed fails the test: without the binary nothing can be checked.
func buildFailed(t testing.TB, err error) {
	t.Helper()
	t.Fatalf("build hermes-desktop: %v", err)
}
