package testbin

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Path gives the lane's prebuilt binary when ExeEnv names one, and that
// binary runs: every Windows test that starts hermes-desktop relies on both.
func TestPathIsTheLanesExe(t *testing.T) {
	want := os.Getenv(ExeEnv)
	if want == "" {
		t.Skipf("%s is unset: not the Windows lane", ExeEnv)
	}
	if got := Path(t); got != want {
		t.Errorf("Path: got %q, want %q (from %s)", got, want, ExeEnv)
	}
	out, err := exec.Command(Path(t), "version").Output()
	if err != nil {
		t.Fatalf("%s version: %v", Path(t), err)
	}
	if len(strings.TrimSpace(string(out))) == 0 {
		t.Errorf("%s version: got no output, want a version", Path(t))
	}
}

// Without ExeEnv and without go on PATH, Path skips the test, saying why,
// rather than failing it: a Windows machine without a toolchain cannot
// build the binary.
func TestPathSkipsWithoutToolchain(t *testing.T) {
	if _, err := exec.LookPath("go"); err == nil {
		t.Skip("go is on PATH: Path would build the binary")
	}
	t.Setenv(ExeEnv, "")
	t.Setenv("PATH", "")
	ran := make(chan bool, 1)
	t.Run("inner", func(t *testing.T) {
		defer func() { ran <- t.Skipped() }()
		Path(t)
	})
	if !<-ran {
		t.Errorf("Path without %s or go: got no skip, want a skip", ExeEnv)
	}
}
