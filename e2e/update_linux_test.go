package e2e

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"aead.dev/minisign"

	"hermes-desktop/backend/model"
	"hermes-desktop/backend/update"
	"hermes-desktop/internal/testbin"
	"hermes-desktop/internal/waitfor"
)

// The self-update, end to end: versions of the real binary built with the
// test's key, installed in a temp dir with an install-type marker, a
// loopback feed server, `update apply` against the running instance.

// updateKey is the test process's release key; every version is built
// with its public half.
var updateKey = sync.OnceValues(func() (minisign.PublicKey, minisign.PrivateKey) {
	pub, priv, err := minisign.GenerateKey(rand.Reader)
	if err != nil {
		panic(err)
	}
	return pub, priv
})

var (
	versionsMu sync.Mutex // guards versions
	versions   = map[string]string{}
)

// buildVersion builds (once per test process) the binary at version with
// the test key and extra -ldflags.
func buildVersion(t *testing.T, version, extra string) string {
	return buildTagged(t, version, extra, "")
}

// buildTagged is buildVersion with build tags.
func buildTagged(t *testing.T, version, extra, tags string) string {
	t.Helper()
	versionsMu.Lock()
	defer versionsMu.Unlock()
	key := version + " " + extra + " " + tags
	if p, ok := versions[key]; ok {
		return p
	}
	pub, _ := updateKey()
	ldflags := fmt.Sprintf("-X main.version=%s -X main.updatePubKey=%s %s", version, pub.String(), extra)
	// In testbin's build directory, which TestMain removes.
	path, err := testbin.BuildTagged(testbin.Dir(t), fmt.Sprintf("hermes-desktop-%d", len(versions)), ldflags, tags)
	if err != nil {
		t.Fatal(err)
	}
	versions[key] = path
	return path
}

// badExit makes a version that exits 1, without teardown, half a second
// after it adopted its backends (app/cli/fault.go).
const badExit = "-X hermes-desktop/app/cli.faultExitAfterAdopt=500ms"

// feedServer serves one signed manifest and its artifact on loopback.
type feedServer struct {
	srv      *httptest.Server
	mu       sync.Mutex // guards the fields below
	manifest []byte
	sig      []byte
	artifact []byte
	cutFirst int // cut the first artifact response after this many bytes
	// byPlatform: publishPlatforms' artifacts, at /dl/<platform key>.
	byPlatform map[string][]byte

	artifactGets, rangeGets atomic.Int32
}

func newFeedServer(t *testing.T) *feedServer {
	f := &feedServer{}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *feedServer) url() string { return f.srv.URL + "/feed/stable.json" }

// publish offers version with artifact's bytes (sha256 and size of
// describe, which may differ: a tampered artifact), signed by priv.
func (f *feedServer) publish(t *testing.T, priv minisign.PrivateKey, version string, artifact, describe []byte) {
	t.Helper()
	m := update.Manifest{Version: version, Notes: "Hermes Desktop " + version, PubDate: "2026-01-02T03:04:05Z",
		Platforms: map[string]update.Artifact{update.Platform(): describeArtifact(t, "../dl/hermes-desktop", describe)}}
	f.offer(t, priv, m, func() { f.artifact = artifact })
}

// describeArtifact is the manifest's entry for a unit artifact's bytes,
// as `release sign` writes it.
func describeArtifact(t *testing.T, url string, artifact []byte) update.Artifact {
	t.Helper()
	sum := sha256.Sum256(artifact)
	u := unitSum(t, artifact)
	return update.Artifact{URL: url, SHA256: hex.EncodeToString(sum[:]), Size: int64(len(artifact)), UnitSHA256: u.SHA256, UnitSize: u.Size}
}

// offer serves m signed by priv, with set (called under mu) putting its
// artifacts in place; m expires in an hour unless it says when.
func (f *feedServer) offer(t *testing.T, priv minisign.PrivateKey, m update.Manifest, set func()) {
	t.Helper()
	if m.Expires == "" {
		m.Expires = update.FormatExpiry(time.Now().Add(time.Hour))
	}
	data, sig, err := update.SignManifest(priv, "stable", &m)
	must(t, err)
	f.mu.Lock()
	defer f.mu.Unlock()
	set()
	f.manifest, f.sig = data, sig
}

// publishPlatforms offers version with an artifact per platform key, each
// at /dl/<key>, signed by priv.
func (f *feedServer) publishPlatforms(t *testing.T, priv minisign.PrivateKey, version string, artifacts map[string][]byte) {
	t.Helper()
	m := update.Manifest{Version: version, Platforms: map[string]update.Artifact{}}
	for key, a := range artifacts {
		m.Platforms[key] = describeArtifact(t, "../dl/"+key, a)
	}
	f.offer(t, priv, m, func() { f.byPlatform = artifacts })
}

func (f *feedServer) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	manifest, sig, body, cut := f.manifest, f.sig, f.artifact, f.cutFirst
	byPlatform, platform := f.byPlatform[strings.TrimPrefix(r.URL.Path, "/dl/")]
	f.mu.Unlock()
	if platform {
		f.artifactGets.Add(1)
		w.Write(byPlatform)
		return
	}
	switch r.URL.Path {
	case "/feed/stable.json":
		w.Write(manifest)
	case "/feed/stable.json.minisig":
		w.Write(sig)
	case "/dl/hermes-desktop":
		n := f.artifactGets.Add(1)
		start := 0
		if rg := r.Header.Get("Range"); rg != "" {
			f.rangeGets.Add(1)
			start, _ = strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(rg, "bytes="), "-"))
			w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", start, len(body)-1, len(body)))
			w.Header().Set("Content-Length", strconv.Itoa(len(body)-start))
			w.WriteHeader(http.StatusPartialContent)
		} else {
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		}
		if n == 1 && cut > 0 { // a connection that breaks off
			w.Write(body[start:cut])
			if c, _, err := w.(http.Hijacker).Hijack(); err == nil {
				c.Close()
			}
			return
		}
		w.Write(body[start:])
	default:
		http.NotFound(w, r)
	}
}

// install copies bin into a fresh directory as hermes-desktop, with an
// install-type marker unless marker is "": then with the rest of its unit
// too (cores of its version, a license), as the archive installs it.
func install(t *testing.T, bin, marker string) string {
	t.Helper()
	dir := t.TempDir()
	exe := filepath.Join(dir, "hermes-desktop")
	if marker == "" {
		data, err := os.ReadFile(bin)
		must(t, err)
		must(t, os.WriteFile(exe, data, 0o755))
		return exe
	}
	layUnit(t, dir, bin, fakeCores(t, versionOf(t, bin)))
	must(t, os.WriteFile(filepath.Join(dir, update.MarkerFile), []byte(marker+"\n"), 0o644))
	return exe
}

// startInstalled runs the installed binary with the feed and a short
// health window.
func startInstalled(t *testing.T, exe string, f *feedServer, window string) (*testbin.Launcher, testbin.Ready) {
	t.Helper()
	l := testbin.StartLauncherBin(t, exe, "--grace", "2s", "--update-feed", f.url(),
		"--update-health-window", window, "--update-check-interval", "0")
	return l, l.WaitReady(1, readyWait)
}

// versionInfo runs `exe version --json`.
func versionInfo(t *testing.T, exe string) update.VersionInfo {
	t.Helper()
	out, err := exec.Command(exe, "version", "--json").Output()
	if err != nil {
		t.Fatalf("%s version --json: %v", exe, err)
	}
	var v update.VersionInfo
	must(t, json.Unmarshal(out, &v))
	return v
}

// versionOf is the version `exe version --json` says.
func versionOf(t *testing.T, exe string) string { return versionInfo(t, exe).Version }

func TestUpdateApply(t *testing.T) {
	for _, cut := range []int{0, 3 << 20} {
		name := "clean download"
		if cut > 0 {
			name = "truncated download resumed"
		}
		t.Run(name, func(t *testing.T) {
			_, priv := updateKey()
			exe := install(t, buildVersion(t, "1.0.0", ""), update.TypePortable)
			next := unitArtifact(t, buildVersion(t, "1.1.0", ""))
			f := newFeedServer(t)
			f.publish(t, priv, "1.1.0", next, next)
			f.cutFirst = cut
			l, first := startInstalled(t, exe, f, "3s")

			// Probed every 5 ms from before the update to after the new
			// version answers.
			w := watch(l.Tag, first.URL+"/api/status") // public: the test holds no token
			time.Sleep(100 * time.Millisecond)
			out, errOut, code := l.CLI("update", "apply")
			time.Sleep(100 * time.Millisecond)
			w.finish()
			if code != 0 || !strings.Contains(out, "updated 1.0.0 -> 1.1.0") {
				t.Fatalf("update apply: exit %d\n%s%s", code, out, errOut)
			}
			t.Logf("update apply said:\n%s", out)
			if fails, n := w.healthFails.Load(), w.healthChecks.Load(); fails > 0 || n < 20 {
				t.Errorf("backend health during the update: %d failed of %d probes (every 5 ms), want 0 failed", fails, n)
			}
			if cut > 0 && (f.artifactGets.Load() != 2 || f.rangeGets.Load() != 1) {
				t.Errorf("download: %d requests, %d ranged; want the cut one resumed with a Range request", f.artifactGets.Load(), f.rangeGets.Load())
			}
			st := status(t, l)
			if st.Instance.Version != "1.1.0" || st.Instance.PID == l.Cmd.Process.Pid || len(st.Backends) != 1 ||
				st.Backends[0].PID != first.PID || st.Backends[0].Port != first.Port {
				t.Fatalf("after the update: %+v, backends %+v; want 1.1.0 serving with backend pid %d port %d", st.Instance, st.Backends, first.PID, first.Port)
			}
			if b := st.Backends[0]; b.PageURL != first.URL+"/" || b.ReadyAt == nil || time.Since(*b.ReadyAt) < 100*time.Millisecond {
				t.Errorf("the adopted backend lost its page or its uptime: page %q, ready at %v", b.PageURL, b.ReadyAt)
			}
			if st.Instance.Update == nil || st.Instance.Update.ProbationUntil == nil {
				t.Errorf("the new instance does not show its health window: %+v", st.Instance.Update)
			}
			if got := versionOf(t, exe); got != "1.1.0" {
				t.Errorf("the installed file says %s, want 1.1.0", got)
			}
			if got := versionOf(t, filepath.Join(exe+update.OldSuffix, "hermes-desktop")); got != "1.0.0" {
				t.Errorf(".old says %s, want 1.0.0", got)
			}
			wantCores(t, exe, "1.1.0")
			// The old process watches the window, then exits 0.
			if code, err := l.WaitExit(15 * time.Second); err != nil || code != 0 {
				t.Fatalf("the watcher: exit %d, %v", code, err)
			}
			if !strings.Contains(l.Stdout.String(), "1.1.0 passed its health window") {
				t.Errorf("the watcher did not report the window:\n%s", l.Stdout.String())
			}
			if update.ReadProbation(filepath.Join(l.StateDir, "updates")) != nil {
				t.Error("probation.json is still there after the window")
			}
			if st := status(t, l); st.Instance.Version != "1.1.0" || st.Backends[0].PID != first.PID {
				t.Errorf("after the window: %+v", st.Instance)
			}
			stopSuccessor(t, l)
		})
	}
}

func TestUpdateRefused(t *testing.T) {
	_, priv := updateKey()
	_, otherKey, err := minisign.GenerateKey(rand.Reader)
	must(t, err)
	next := unitArtifact(t, buildVersion(t, "1.1.0", ""))
	tampered := bytes.Clone(next)
	tampered[len(tampered)/2] ^= 0xff
	cases := []struct {
		name    string
		publish func(f *feedServer)
		want    string // in apply's error
		code    string // its control code
		check   string // update check's reason ("" for available)
	}{
		{"tampered artifact", func(f *feedServer) { f.publish(t, priv, "1.1.0", tampered, next) }, "sha256", "unverified", ""},
		{"signed by another key", func(f *feedServer) { f.publish(t, otherKey, "1.1.0", next, next) }, "not signed by a trusted key", "unverified", "signature"},
		{"older version", func(f *feedServer) { f.publish(t, priv, "0.9.0", next, next) }, "no newer version", "up-to-date", "up-to-date"},
		{"same version", func(f *feedServer) { f.publish(t, priv, "1.0.0", next, next) }, "no newer version", "up-to-date", "up-to-date"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			exe := install(t, buildVersion(t, "1.0.0", ""), update.TypePortable)
			before, err := os.ReadFile(exe)
			must(t, err)
			f := newFeedServer(t)
			tc.publish(f)
			l, first := startInstalled(t, exe, f, "3s")
			out, errOut, code := l.CLI("update", "apply")
			if code == 0 || !strings.Contains(errOut, tc.want) || !strings.Contains(errOut, tc.code+":") {
				t.Fatalf("update apply: exit %d, %q%q; want a refusal saying %q (%s)", code, out, errOut, tc.want, tc.code)
			}
			after, err := os.ReadFile(exe)
			must(t, err)
			if !bytes.Equal(before, after) {
				t.Error("the installed file changed")
			}
			if _, err := os.Stat(exe + update.OldSuffix); err == nil {
				t.Error("a .old appeared")
			}
			st := status(t, l)
			if st.Instance.PID != l.Cmd.Process.Pid || st.Backends[0].PID != first.PID {
				t.Errorf("the instance or its backend changed: %+v", st)
			}
			out, _, code = l.CLI("update", "check", "--json")
			var c update.Check
			wantCode := 0
			if c.Reason = tc.check; c.Failed() {
				wantCode = 1
			}
			if code != wantCode || json.Unmarshal([]byte(out), &c) != nil || c.Available != (tc.check == "") || c.Reason != tc.check || c.Current != "1.0.0" {
				t.Errorf("update check: exit %d %q, want exit %d, reason %q", code, out, wantCode, tc.check)
			}
			stopAndCheck(t, l)
		})
	}
}

// A copy without the install-type marker (a .deb's /usr/bin binary, or a
// bare executable) is never replaced: the user is told the command.
func TestUpdatePackageManagedIsNotified(t *testing.T) {
	_, priv := updateKey()
	exe := install(t, buildVersion(t, "1.0.0", ""), "")
	before, err := os.ReadFile(exe)
	must(t, err)
	next := unitArtifact(t, buildVersion(t, "1.1.0", ""))
	f := newFeedServer(t)
	f.publish(t, priv, "1.1.0", next, next)
	l, _ := startInstalled(t, exe, f, "3s")
	out, _, code := l.CLI("update", "check", "--json")
	var c update.Check
	if code != 0 || json.Unmarshal([]byte(out), &c) != nil || !c.Available || c.Reason != "package-managed" ||
		!strings.Contains(c.Command, "sudo apt install ./hermes-desktop_1.1.0_webkit41_amd64.deb") {
		t.Fatalf("update check: exit %d %q; want available, package-managed, with the apt command", code, out)
	}
	_, errOut, code := l.CLI("update", "apply")
	if code == 0 || !strings.Contains(errOut, "sudo apt install ./hermes-desktop_1.1.0_webkit41_amd64.deb") || !strings.Contains(errOut, "refused:") {
		t.Fatalf("update apply: exit %d %q; want a refusal with the command", code, errOut)
	}
	if after, _ := os.ReadFile(exe); !bytes.Equal(before, after) || f.artifactGets.Load() != 0 {
		t.Errorf("the file changed (%v) or the artifact was downloaded (%d)", !bytes.Equal(before, after), f.artifactGets.Load())
	}
	if st := status(t, l); st.Instance.Update == nil || st.Instance.Update.Command == "" {
		t.Errorf("status does not carry the command: %+v", st.Instance.Update)
	}
	stopAndCheck(t, l)
}

// A build without a key says updates are off.
func TestUpdateOffWithoutKey(t *testing.T) {
	l := testbin.StartLauncher(t, "--update-feed", "https://example.com/stable.json")
	l.WaitReady(1, readyWait)
	out, _, code := l.CLI("update", "check")
	if code != 0 || !strings.Contains(out, "Updates are off") || !strings.Contains(out, "no update key") {
		t.Errorf("update check: exit %d %q, want updates off: no key", code, out)
	}
	if st := status(t, l); st.Instance.Update == nil || st.Instance.Update.State != update.StateOff {
		t.Errorf("status: %+v, want state off", st.Instance.Update)
	}
	_, errOut, code := l.CLI("update", "apply")
	if code == 0 || !strings.Contains(errOut, "no update key") {
		t.Errorf("update apply: exit %d %q, want a refusal", code, errOut)
	}
	stopAndCheck(t, l)
}

// A new version that dies right after the handoff is rolled back inside
// its health window: the old binary back in place and serving, the
// backend running again, the version marked bad and never offered again.
func TestUpdateRollsBackAVersionThatDies(t *testing.T) {
	_, priv := updateKey()
	exe := install(t, buildVersion(t, "1.0.0", ""), update.TypePortable)
	before, err := os.ReadFile(exe)
	must(t, err)
	bad := unitArtifact(t, buildVersion(t, "1.2.0", badExit))
	f := newFeedServer(t)
	f.publish(t, priv, "1.2.0", bad, bad)
	l, first := startInstalled(t, exe, f, "10s")
	out, errOut, code := l.CLI("update", "apply")
	if code != 0 {
		t.Fatalf("update apply: exit %d\n%s%s", code, out, errOut)
	}
	start := time.Now()
	if _, err := l.Stdout.WaitMatchN(regexp.MustCompile(`update: rolled back to 1\.0\.0`), 1, 30*time.Second); err != nil {
		t.Fatalf("no rollback: %v\n%s", err, l.Stdout.String())
	}
	t.Logf("rolled back %v after apply returned:\n%s", time.Since(start), l.Stdout.String())
	if code, err := l.WaitExit(15 * time.Second); err != nil || code != 0 {
		t.Fatalf("the watcher: exit %d, %v", code, err)
	}
	if after, _ := os.ReadFile(exe); !bytes.Equal(before, after) {
		t.Error("the installed file is not the old version again")
	}
	dir := filepath.Join(l.StateDir, "updates")
	if b, ok := update.IsBad(dir, "1.2.0"); !ok || !strings.Contains(b.Reason, "exited") {
		t.Errorf("bad.json: %+v %v, want 1.2.0 marked bad for exiting", b, ok)
	}
	// The restored version serves with a ready backend, and says what happened.
	var st model.Status
	if !waitfor.Try(readyWait, func() bool {
		s, ok := statusOf(t, l)
		if ok && s.Instance.Version == "1.0.0" && len(s.Backends) == 1 && s.Backends[0].State == model.StateReady {
			st = s
			return true
		}
		return false
	}) {
		t.Fatalf("the old version does not serve a ready backend after the rollback: %+v", st)
	}
	if resp, err := http.Get(st.Backends[0].URL + "/api/status"); err != nil || resp.StatusCode != 200 {
		t.Errorf("the backend after the rollback: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	if !strings.Contains(strings.Join(st.Notices, "\n"), "1.2.0 was rolled back to 1.0.0") {
		t.Errorf("notices: %q, want the rollback", st.Notices)
	}
	t.Logf("backend pid %d before, %d after (lost with the failed version: restarted)", first.PID, st.Backends[0].PID)
	out, _, code = l.CLI("update", "check", "--json")
	var c update.Check
	if code != 0 || json.Unmarshal([]byte(out), &c) != nil || c.Available || !strings.Contains(c.Message, "not offered again") {
		t.Errorf("update check after the rollback: exit %d %q, want 1.2.0 not offered again", code, out)
	}
	stopSuccessor(t, l)
}

// A backend that crash-loops under the new version (killed twice here)
// rolls it back too; the new instance still runs, so it hands the
// backends back to the restored old binary: same processes, no restart.
func TestUpdateRollsBackACrashLoopAndKeepsTheBackends(t *testing.T) {
	_, priv := updateKey()
	exe := install(t, buildVersion(t, "1.0.0", ""), update.TypePortable)
	next := unitArtifact(t, buildVersion(t, "1.1.0", ""))
	f := newFeedServer(t)
	f.publish(t, priv, "1.1.0", next, next)
	l, _ := startInstalled(t, exe, f, "30s")
	if out, errOut, code := l.CLI("update", "apply"); code != 0 {
		t.Fatalf("update apply: exit %d\n%s%s", code, out, errOut)
	}
	var last model.BackendStatus
	for crash := 1; crash <= 2; crash++ {
		b := waitReadyBackend(t, l, "1.1.0", last.PID)
		must(t, syscall.Kill(b.PID, syscall.SIGKILL)) // the test's own backend (tagged)
		last = b
	}
	if _, err := l.Stdout.WaitMatchN(regexp.MustCompile(`update: rolled back to 1\.0\.0; the backends were handed back`), 1, 60*time.Second); err != nil {
		t.Fatalf("no rollback with the backends handed back: %v\n%s", err, l.Stdout.String())
	}
	if code, err := l.WaitExit(15 * time.Second); err != nil || code != 0 {
		t.Fatalf("the watcher: exit %d, %v", code, err)
	}
	st := status(t, l)
	kept := waitReadyBackend(t, l, "1.0.0", 0)
	if st.Instance.Version != "1.0.0" || kept.PID == last.PID {
		t.Errorf("after the rollback: %+v, backend %d (killed: %d)", st.Instance, kept.PID, last.PID)
	}
	// Adopted, not started afresh: its status keeps the two crashes.
	if c := kept.Crashes; c < 2 {
		t.Errorf("the handed-back backend shows %d crashes, want its history (2): started afresh?", c)
	}
	if got := versionOf(t, exe); got != "1.0.0" {
		t.Errorf("the installed file says %s, want 1.0.0", got)
	}
	if b, ok := update.IsBad(filepath.Join(l.StateDir, "updates"), "1.1.0"); !ok || !strings.Contains(b.Reason, "crashed 2 times") {
		t.Errorf("bad.json: %+v %v, want 1.1.0 marked bad for crashing", b, ok)
	}
	if !strings.Contains(strings.Join(status(t, l).Notices, "\n"), "its backends were kept") {
		t.Errorf("notices: %q, want the rollback with the backends kept", status(t, l).Notices)
	}
	stopSuccessor(t, l)
}

// waitReadyBackend waits for the instance at version to show its one
// backend ready with a PID other than not.
func waitReadyBackend(t *testing.T, l *testbin.Launcher, version string, not int) model.BackendStatus {
	t.Helper()
	var b model.BackendStatus
	if waitfor.Try(readyWait, func() bool {
		st, ok := statusOf(t, l)
		if ok && st.Instance.Version == version && len(st.Backends) == 1 &&
			st.Backends[0].State == model.StateReady && st.Backends[0].PID != not {
			b = st.Backends[0]
			return true
		}
		return false
	}) {
		return b
	}
	t.Fatalf("no ready backend under %s (other than pid %d)", version, not)
	return model.BackendStatus{}
}
