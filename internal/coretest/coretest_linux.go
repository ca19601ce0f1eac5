// Package coretest makes cores directories (backend/remotecore) for tests.
package coretest

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"hermes-desktop/backend/remotecore"
)

// Dir makes a cores directory (backend/remotecore) holding bin, a CGO-off
// hermes-desktop built for this machine, as this machine's platform's
// core, with bin's own version: point HERMES_DESKTOP_CORES at it and the
// app run from bin installs bin on the "remote".
func Dir(t testing.TB, bin string) string {
	t.Helper()
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatalf("%s version: %v", bin, err)
	}
	version := strings.TrimPrefix(strings.TrimSpace(string(out)), "hermes-desktop ")
	core, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestSpeed)
	if _, err := zw.Write(core); err != nil || zw.Close() != nil {
		t.Fatalf("gzip the core: %v", err)
	}
	p := remotecore.Platform{GOOS: runtime.GOOS, GOARCH: runtime.GOARCH}
	name := remotecore.CoreFileName(p)
	sum := sha256.Sum256(core)
	dir := t.TempDir()
	for file, data := range map[string]string{
		name:                   gz.String(),
		remotecore.SumsFile:    hex.EncodeToString(sum[:]) + "  " + strings.TrimSuffix(name, ".gz") + "\n",
		remotecore.VersionFile: version + "\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, file), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
