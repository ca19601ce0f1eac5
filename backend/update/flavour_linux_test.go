package update

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A staged binary of another flavour fails the smoke test.
func TestSmokeChecksFlavour(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "hermes-desktop")
	script := "#!/bin/sh\necho '{\"version\":\"1.1.0\",\"flavour\":\"webkit40\"}'\n"
	if err := os.WriteFile(exe, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	err := Smoke(t.Context(), exe, "1.1.0")
	if !errors.Is(err, ErrSmoke) || !strings.Contains(err.Error(), "WebKitGTK 4.0") {
		t.Fatalf("got %v, want ErrSmoke naming the WebKitGTK 4.0 build", err)
	}
}
