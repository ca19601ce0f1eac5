package e2e

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"hermes-desktop/backend/update"
	"hermes-desktop/internal/testbin"
)

// A release made as a release manager makes one (`release pack`, then
// `release sign -releases` with the earlier release's artifact kept
// beside it) and published as files: an install of 1.0.0 downloads the
// patch, not the full artifact, and says so in `update check`; a patch
// corrupted on the server makes the update fall back to the full artifact
// and still succeed.
func TestUpdateApplyTakesThePatch(t *testing.T) {
	for _, corrupt := range []bool{false, true} {
		name := "the patch"
		if corrupt {
			name = "a corrupted patch falls back"
		}
		t.Run(name, func(t *testing.T) {
			site := publishRelease(t)
			if corrupt {
				p := site.patch(t)
				data, err := os.ReadFile(p)
				must(t, err)
				data[len(data)/2] ^= 0xff
				must(t, os.WriteFile(p, data, 0o644))
			}
			exe := install(t, buildVersion(t, "1.0.0", ""), update.TypePortable)
			l := testbin.StartLauncherBin(t, exe, "--grace", "2s", "--update-feed", site.url(),
				"--update-health-window", "2s", "--update-check-interval", "0")
			l.WaitReady(1, readyWait)
			out, errOut, code := l.CLI("update", "check")
			if code != 0 || !strings.Contains(out, "patch (full download") {
				t.Fatalf("update check: exit %d %q %q, want it to name the patch and the full size", code, out, errOut)
			}
			out, errOut, code = l.CLI("update", "apply")
			if code != 0 || !strings.Contains(out, "updated 1.0.0 -> 1.1.0") {
				t.Fatalf("update apply: exit %d\n%s%s", code, out, errOut)
			}
			patches, fulls := site.gets(".patch"), site.gets(".unit.tar.zst")
			if want := map[bool]int{false: 0, true: 1}[corrupt]; patches != 1 || fulls != want {
				t.Errorf("downloads: %d of the patch, %d of the full artifact; want 1 and %d", patches, fulls, want)
			}
			if got := versionOf(t, exe); got != "1.1.0" {
				t.Errorf("the installed file says %s, want 1.1.0", got)
			}
			wantCores(t, exe, "1.1.0")
			if code, err := l.WaitExit(30 * time.Second); err != nil || code != 0 {
				t.Fatalf("the watcher: exit %d, %v", code, err)
			}
			stopSuccessor(t, l)
		})
	}
}

// releaseSite is a release directory served as files: feed/stable.json
// and its signature, dl/ with the artifact and its patches.
type releaseSite struct {
	srv  *httptest.Server
	root string
	mu   sync.Mutex // guards counts
	// counts are the GETs of each file under dl/, by name.
	counts map[string]int
}

func (s *releaseSite) url() string { return s.srv.URL + "/feed/stable.json" }

// gets counts the downloads of files whose name ends in suffix.
func (s *releaseSite) gets(suffix string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for name, c := range s.counts {
		if strings.HasSuffix(name, suffix) {
			n += c
		}
	}
	return n
}

// patch is the path of the one patch published.
func (s *releaseSite) patch(t *testing.T) string {
	t.Helper()
	found, err := filepath.Glob(filepath.Join(s.root, "dl", "*.patch"))
	if err != nil || len(found) != 1 {
		t.Fatalf("patches published: %v %v, want one", found, err)
	}
	return found[0]
}

// publishRelease packs 1.0.0 and 1.1.0 with the release tool, keeps
// 1.0.0's artifact as the releases directory, signs 1.1.0 with its patch
// and serves the result.
func publishRelease(t *testing.T) *releaseSite {
	t.Helper()
	_, priv := updateKey()
	key := filepath.Join(t.TempDir(), "update.key")
	text, err := priv.MarshalText()
	must(t, err)
	must(t, os.WriteFile(key, text, 0o600))
	tool := releaseTool(t)
	s := &releaseSite{root: t.TempDir(), counts: map[string]int{}}
	releases, dl := t.TempDir(), filepath.Join(s.root, "dl")
	platform := update.Platform()
	for version, out := range map[string]string{"1.0.0": releases, "1.1.0": dl} {
		dir := t.TempDir()
		layUnit(t, dir, buildVersion(t, version, ""), fakeCores(t, version))
		runTool(t, tool, "pack", "-platform", platform, "-version", version, "-out", out, dir)
	}
	art := update.UnitArtifactName("1.1.0", platform)
	said := runTool(t, tool, "sign", "-key", key, "-version", "1.1.0", "-platform", platform, "-url", "../dl/"+art,
		"-out", filepath.Join(s.root, "feed"), "-releases", releases, filepath.Join(dl, art))
	t.Logf("release sign said:\n%s", said)
	files := http.FileServer(http.Dir(s.root))
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if name, ok := strings.CutPrefix(r.URL.Path, "/dl/"); ok {
			s.mu.Lock()
			s.counts[name]++
			s.mu.Unlock()
		}
		files.ServeHTTP(w, r)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

var (
	releaseToolMu   sync.Mutex // guards releaseToolPath
	releaseToolPath string
)

// releaseTool builds cmd/release once per test process, into testbin's
// build directory (which TestMain removes).
func releaseTool(t *testing.T) string {
	t.Helper()
	releaseToolMu.Lock()
	defer releaseToolMu.Unlock()
	if releaseToolPath == "" {
		path := filepath.Join(testbin.Dir(t), "release")
		cmd := exec.Command("go", "build", "-o", path, "./cmd/release")
		cmd.Dir = ".." // the module root, above e2e/
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build ./cmd/release: %v\n%s", err, out)
		}
		releaseToolPath = path
	}
	return releaseToolPath
}

// runTool runs the release tool and returns what it printed.
func runTool(t *testing.T, tool string, args ...string) string {
	t.Helper()
	out, err := exec.Command(tool, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("release %s: %v\n%s", args[0], err, out)
	}
	return string(out)
}
