package backend

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Open log folder and Open Hermes say why nothing opened: no opener on
// PATH, or one that found no program for the target (issue 23: the window
// gave no feedback even when they failed).
func TestOpenExternalSaysWhyNothingOpened(t *testing.T) {
	l := &Pages{}
	t.Setenv("PATH", t.TempDir()) // no xdg-open
	err := l.OpenExternal(t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "xdg-open, which opens files and links, is not installed") || strings.Contains(err.Error(), "$PATH") {
		t.Errorf("no opener: got %v, want xdg-open is not installed, in words", err)
	}
	if !errors.Is(err, exec.ErrNotFound) {
		t.Errorf("no opener: got %v, want it to wrap exec.ErrNotFound", err)
	}

	bin := t.TempDir()
	script := "#!/bin/sh\necho \"xdg-open: no method available for opening '$1'\" >&2\nexit 3\n"
	if err := os.WriteFile(filepath.Join(bin, "xdg-open"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	err = l.OpenExternal(t.TempDir())
	if err == nil || !strings.HasSuffix(err.Error(), "found no program for it (exit status 3)") {
		t.Errorf("opener exits 3: got %v, want found no program for it (exit status 3)", err)
	}

	if err := os.WriteFile(filepath.Join(bin, "xdg-open"), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := l.OpenExternal(t.TempDir()); err != nil {
		t.Errorf("opener exits 0: got %v, want nil", err)
	}
}
