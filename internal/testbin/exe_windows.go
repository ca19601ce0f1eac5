package testbin

import (
	"errors"
	"os"
	"os/exec"
	"testing"
)

// exeSuffix ends an executable's name: CreateProcess appends .exe to a
// name without an extension.
const exeSuffix = ".exe"

// ExeEnv names a prebuilt hermes-desktop.exe. The Windows lane
// (scripts/wine/test-windows.sh) sets it: there is no Go toolchain inside
// Wine to build one.
const ExeEnv = "HERMES_DESKTOP_TEST_EXE"

// prebuilt is the binary ExeEnv names, when it is set.
func prebuilt() (string, bool) {
	path := os.Getenv(ExeEnv)
	return path, path != ""
}

// buildFailed skips the test when there is no Go toolchain to build with
// (the Windows lane provides the binary in ExeEnv instead) and fails it
// for any other reason.
func buildFailed(t testing.TB, err error) {
	t.Helper()
	if errors.Is(err, exec.ErrNotFound) {
		t.Skipf("no hermes-desktop.exe: %s is unset and there is no go on PATH to build one (the Windows lane, scripts/wine/test-windows.sh, sets it)", ExeEnv)
	}
	t.Fatalf("build hermes-desktop: %v", err)
}
