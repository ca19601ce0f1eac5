package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"hermes-desktop/backend/update"
	"hermes-desktop/backend/update/unit"
	"hermes-desktop/internal/testbin"
)

// An update of a self-managed install replaces its unit: the executable,
// cores/ and the license beside it. The tests' units carry cores that
// remote-cores accepts (VERSION, SHA256SUMS and the file it lists) but no
// host runs, unless a test lays out real ones (coretest.Dir).

// fakeCores writes a cores directory of version and returns it.
func fakeCores(t *testing.T, version string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range map[string]string{
		"VERSION":                            version + "\n",
		"SHA256SUMS":                         strings.Repeat("0", 64) + "  hermes-desktop-core-linux-amd64\n",
		"hermes-desktop-core-linux-amd64.gz": "a core of " + version,
	} {
		must(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}
	return dir
}

// layUnit lays out a unit in dir: bin as hermes-desktop, the cores
// directory's files in cores/, a license.
func layUnit(t *testing.T, dir, bin, cores string) {
	t.Helper()
	layUnitAs(t, dir, unit.ExeUnix, "LICENSE", bin, cores)
}

// layUnitAs is layUnit with the executable and the license under the
// names an installer gives them (the Windows one: hermes-desktop.exe,
// LICENSE.txt).
func layUnitAs(t *testing.T, dir, exeName, license, bin, cores string) {
	t.Helper()
	data, err := os.ReadFile(bin)
	must(t, err)
	must(t, os.WriteFile(filepath.Join(dir, exeName), data, 0o755))
	must(t, os.WriteFile(filepath.Join(dir, license), []byte("MIT"), 0o644))
	must(t, os.MkdirAll(filepath.Join(dir, unit.CoresDir), 0o755))
	entries, err := os.ReadDir(cores)
	must(t, err)
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(cores, e.Name()))
		must(t, err)
		must(t, os.WriteFile(filepath.Join(dir, unit.CoresDir, e.Name()), data, 0o644))
	}
}

var (
	unitsMu sync.Mutex // guards units
	units   = map[string][]byte{}
)

// unitArtifact is the update artifact of bin with fake cores of its
// version (once per binary and test process): what `release pack` makes.
func unitArtifact(t *testing.T, bin string) []byte {
	t.Helper()
	unitsMu.Lock()
	defer unitsMu.Unlock()
	if a, ok := units[bin]; ok {
		return a
	}
	a := packDir(t, bin, fakeCores(t, versionOf(t, bin)))
	units[bin] = a
	return a
}

// packDir packs bin with the cores in cores as an update artifact.
func packDir(t *testing.T, bin, cores string) []byte {
	t.Helper()
	dir := t.TempDir()
	layUnit(t, dir, bin, cores)
	return packUnit(t, dir)
}

// packUnit is the update artifact of the unit laid out in dir.
func packUnit(t *testing.T, dir string) []byte {
	t.Helper()
	var buf bytes.Buffer
	_, err := unit.Compress(&buf, dir)
	must(t, err)
	return buf.Bytes()
}

// unitSum is the unit an artifact unpacks to, as `release sign` reads it;
// the zero Sum for bytes that are no unit artifact (a tampered one).
func unitSum(t *testing.T, artifact []byte) unit.Sum {
	t.Helper()
	sum, err := unit.ExtractArtifact(bytes.NewReader(artifact), t.TempDir())
	if err != nil {
		return unit.Sum{}
	}
	return sum
}

// wantCores checks that the install of exe finds its remote cores, and
// that they are version's: `remote-cores --json` of the installed copy, as
// a remote backend's start finds them.
func wantCores(t *testing.T, exe, version string) {
	t.Helper()
	cmd := exec.Command(exe, "remote-cores", "--json")
	cmd.Env = testbin.NewEnv(testbin.NewTag(), t.TempDir()) // no HERMES_DESKTOP_CORES
	out, err := cmd.Output()
	var c update.CoresInfo
	if err == nil {
		err = json.Unmarshal(out, &c)
	}
	if err != nil || c.Version != version || c.Dir != filepath.Join(filepath.Dir(exe), unit.CoresDir) {
		t.Errorf("%s remote-cores --json: %s %v; want version %s in %s", exe, out, err, version, filepath.Join(filepath.Dir(exe), unit.CoresDir))
	}
}
