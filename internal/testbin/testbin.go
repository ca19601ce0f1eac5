// Package testbin builds the hermes-desktop binary once per test process and
// runs it under a per-test tag, so tests use the real launcher, shim and
// built-in backend, and clean up every process they created (and only
// those: a process is ours if it carries the test's tag in its environment).
// FakeHermes puts a `hermes` on PATH that runs the built-in backend and
// emulates Hermes' attach rule; StartHostDashboard starts the host it
// attaches to.
package testbin

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

var (
	dirOnce   sync.Once
	buildDir  string
	dirErr    error
	buildOnce sync.Once
	buildPath string
	buildErr  error
)

// Main runs the tests and removes the built binary afterwards. Use it as
// `func TestMain(m *testing.M) { os.Exit(testbin.Main(m)) }`.
func Main(m *testing.M) int {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	return code
}

// Path returns the path of the hermes-desktop binary the tests run: one
// built for this test process or, on Windows, the one the Windows lane
// provides (prebuilt).
func Path(t testing.TB) string {
	t.Helper()
	if path, ok := prebuilt(); ok {
		return path
	}
	buildOnce.Do(build)
	if buildErr != nil {
		buildFailed(t, buildErr)
	}
	return buildPath
}

// Dir returns a directory that Main removes at the end, where the binary is
// built: a place for other builds the tests make (versions of the binary
// for the update tests).
func Dir(t testing.TB) string {
	t.Helper()
	dirOnce.Do(func() { buildDir, dirErr = os.MkdirTemp("", "hermes-desktop-testbin-") })
	if dirErr != nil {
		t.Fatalf("build directory: %v", dirErr)
	}
	return buildDir
}

func build() {
	dirOnce.Do(func() { buildDir, dirErr = os.MkdirTemp("", "hermes-desktop-testbin-") })
	if buildErr = dirErr; buildErr == nil {
		buildPath, buildErr = Build(buildDir)
	}
}

// Build compiles hermes-desktop (no GUI, CGO off) into dir and returns the
// binary's path. Benchmarks use it too.
func Build(dir string) (string, error) {
	return BuildWith(dir, "hermes-desktop", "")
}

// BuildWith compiles hermes-desktop into dir/name (name.exe on Windows)
// with extra -ldflags
// (the update tests build versions: "-X main.version=1.1.0 ...").
func BuildWith(dir, name, ldflags string) (string, error) {
	return BuildTagged(dir, name, ldflags, "")
}

// BuildTagged is BuildWith with build tags (go build -tags; "" for none).
func BuildTagged(dir, name, ldflags, tags string) (string, error) {
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, name+exeSuffix)
	cmd := exec.Command("go", "build", "-tags", tags, "-ldflags", ldflags, "-o", path, ".")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("testbin: go build: %w\n%s", err, out.String())
	}
	return path, nil
}

func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the test directory")
		}
		dir = parent
	}
}
