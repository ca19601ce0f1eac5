package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"hermes-desktop/backend/remotecore"
	"hermes-desktop/backend/update"
)

// writeCores lays out a cores directory of version with a core file for
// each of platforms (their content is not a real core: only located here).
func writeCores(t *testing.T, version string, platforms ...remotecore.Platform) string {
	t.Helper()
	dir := t.TempDir()
	var sums strings.Builder
	for _, p := range platforms {
		name := remotecore.CoreFileName(p)
		if err := os.WriteFile(filepath.Join(dir, name), []byte("core"), 0o644); err != nil {
			t.Fatal(err)
		}
		sums.WriteString(strings.Repeat("ab", 32) + "  " + strings.TrimSuffix(name, ".gz") + "\n")
	}
	for name, data := range map[string]string{remotecore.SumsFile: sums.String(), remotecore.VersionFile: version + "\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestRemoteCores(t *testing.T) {
	run := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := Main(append([]string{"remote-cores"}, args...), &stdout, &stderr, Program{Version: "1.2.3"})
		return code, stdout.String(), stderr.String()
	}

	dir := writeCores(t, "1.2.3", remotecore.Platforms...)
	t.Setenv(remotecore.CoresEnv, dir)
	code, out, errOut := run("--json")
	var got update.CoresInfo
	if code != ExitOK || json.Unmarshal([]byte(out), &got) != nil {
		t.Fatalf("remote-cores --json: exit %d, %q, stderr %q", code, out, errOut)
	}
	want := update.CoresInfo{Dir: dir, Version: "1.2.3", Platforms: []string{"linux/amd64", "linux/arm64", "darwin/arm64", "darwin/amd64"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("remote-cores --json: got %+v, want %+v", got, want)
	}
	if code, out, _ := run(); code != ExitOK || !strings.Contains(out, dir) || !strings.Contains(out, "darwin/amd64") {
		t.Errorf("remote-cores: exit %d, %q; want the directory and each platform", code, out)
	}

	// Cores of another version (an executable copied without its own).
	// The reason names the way out.
	t.Setenv(remotecore.CoresEnv, writeCores(t, "1.2.2", remotecore.Platforms...))
	if code, _, errOut := run(); code != ExitError || !strings.Contains(errOut, "from its package") || !strings.Contains(errOut, `"1.2.2"`) {
		t.Errorf("cores of another version: exit %d, stderr %q; want 1, why and the way out", code, errOut)
	}

	// SHA256SUMS lists a core whose file is gone.
	dir = writeCores(t, "1.2.3", remotecore.Platforms...)
	if err := os.Remove(filepath.Join(dir, remotecore.CoreFileName(remotecore.Platforms[1]))); err != nil {
		t.Fatal(err)
	}
	t.Setenv(remotecore.CoresEnv, dir)
	if code, _, errOut := run(); code != ExitError || !strings.Contains(errOut, "linux/arm64") {
		t.Errorf("a missing core: exit %d, stderr %q; want 1 naming linux/arm64", code, errOut)
	}

	// None at all: the test binary has no cores beside it.
	t.Setenv(remotecore.CoresEnv, "")
	if code, _, errOut := run("--json"); code != ExitError || !strings.Contains(errOut, "no cores") {
		t.Errorf("no cores: exit %d, stderr %q; want 1 saying there are none", code, errOut)
	}
	if code, _, _ := run("extra"); code != ExitUsage {
		t.Errorf("remote-cores extra: exit %d, want %d", code, ExitUsage)
	}
}
