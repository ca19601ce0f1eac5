package update

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"hermes-desktop/contract/hermes"
	"hermes-desktop/internal/testbin"
)

// exeName is what the installer names the binary.
const exeName = "hermes-desktop.exe"

// readyPrefix is the line `hermes-desktop serve` announces its port with.
const readyPrefix = hermes.ServeReadyPrefix

// TestMain removes the binary testbin builds when no prebuilt one is given.
func TestMain(m *testing.M) { os.Exit(testbin.Main(m)) }

// realExe is a real hermes-desktop.exe: the one the Wine lane prebuilt
// (there is no Go toolchain inside Wine), else one built now, copied to a
// name with .exe (testbin builds "hermes-desktop", which Windows will not
// run by that name).
func realExe(t *testing.T) string {
	t.Helper()
	if exe := os.Getenv("HERMES_DESKTOP_TEST_EXE"); exe != "" {
		return exe
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skipf("no prebuilt exe in HERMES_DESKTOP_TEST_EXE, and no Go to build one: %v", err)
	}
	exe := filepath.Join(t.TempDir(), exeName)
	copyFile(t, testbin.Path(t), exe)
	return exe
}

// versionOf is the version exe prints for the smoke test.
func versionOf(t *testing.T, exe string) string {
	t.Helper()
	out, err := exec.Command(exe, "version", "--json").Output()
	var v VersionInfo
	if err == nil {
		err = json.Unmarshal(bytes.TrimSpace(out), &v)
	}
	if err != nil || v.Version == "" {
		t.Fatalf("%s version --json: %q, %v", exe, out, err)
	}
	return v.Version
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o755); err != nil {
		t.Fatal(err)
	}
}

// stat reads the identity of the file at path now. Through an open file:
// os.Stat's answer on Windows reads the file index only when first
// compared, from the path, which by then may name another file.
func stat(t *testing.T, path string) os.FileInfo {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	return fi
}

// wantSame checks that path is the file fi was read from: a rename keeps a
// file's identity, so this tells which copy a swap put where (every copy
// here is the same binary, with the same version).
func wantSame(t *testing.T, path string, fi os.FileInfo, what string) {
	t.Helper()
	got, err := os.Stat(path) // compared at once, while path names it
	if err != nil || !os.SameFile(got, fi) {
		t.Errorf("%s: got another file (%v), want %s", path, err, what)
	}
}

// leftover is the one file in dir whose name starts with prefix.
func leftover(t *testing.T, dir, prefix string) string {
	t.Helper()
	matches, _ := filepath.Glob(filepath.Join(dir, prefix+"*"))
	if len(matches) != 1 {
		t.Fatalf("%s%s*: got %v, want one", dir, prefix, matches)
	}
	return matches[0]
}

// server is a running `hermes-desktop serve`: a process whose image is the
// file a swap renames.
type server struct {
	cmd    *exec.Cmd
	port   int
	exited chan struct{} // closed when Wait has returned; then err is set
	err    error
}

// startServe runs exe's built-in backend until the test ends (or stop).
func startServe(t *testing.T, exe string) *server {
	t.Helper()
	ready := make(chan int, 1)
	s := &server{cmd: exec.Command(exe, "serve", "--host", "127.0.0.1", "--port", "0"), exited: make(chan struct{})}
	s.cmd.Stdout = &readyWriter{ready: ready}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// One goroutine owns Wait; it ends when the process does, which stop
	// ensures at the latest.
	go func() { s.err = s.cmd.Wait(); close(s.exited) }()
	t.Cleanup(func() { s.stop(t) })
	select {
	case s.port = <-ready:
	case <-s.exited:
		t.Fatalf("%s serve exited before it was ready: %v", exe, s.err)
	case <-time.After(30 * time.Second):
		t.Fatalf("%s serve: not ready after 30 s", exe)
	}
	return s
}

// stop kills the process, through the handle Start opened (so no other
// process can be hit), and waits until it is gone.
func (s *server) stop(t *testing.T) {
	t.Helper()
	select {
	case <-s.exited:
		return
	default:
	}
	if err := s.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		t.Errorf("kill %d: %v", s.cmd.Process.Pid, err)
	}
	<-s.exited
}

// wantServing checks the process still runs and answers.
func (s *server) wantServing(t *testing.T) {
	t.Helper()
	select {
	case <-s.exited:
		t.Fatalf("pid %d: got exited (%v), want it still serving", s.cmd.Process.Pid, s.err)
	default:
	}
	c := http.Client{Timeout: 10 * time.Second}
	resp, err := c.Get("http://127.0.0.1:" + strconv.Itoa(s.port) + "/api/status")
	if err != nil {
		t.Fatalf("pid %d: %v", s.cmd.Process.Pid, err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("pid %d: /api/status got %s, want 200", s.cmd.Process.Pid, resp.Status)
	}
}

// readyWriter takes serve's stdout and sends the port of its READY line.
type readyWriter struct {
	mu    sync.Mutex // guards buf and sent (exec writes from its own goroutine)
	buf   []byte
	sent  bool
	ready chan<- int
}

func (w *readyWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.sent {
		return len(p), nil
	}
	w.buf = append(w.buf, p...)
	for {
		line, rest, ok := bytes.Cut(w.buf, []byte("\n"))
		if !ok {
			return len(p), nil
		}
		w.buf = rest
		if port, found := strings.CutPrefix(strings.TrimSpace(string(line)), readyPrefix); found {
			if n, err := strconv.Atoi(port); err == nil {
				w.ready <- n
				w.sent = true
				return len(p), nil
			}
		}
	}
}

// installed copies the real binary into a fresh install directory, as
// hermes-desktop.exe, with the rest of its unit (cores of its version, a
// license) and the nsis-user marker, and makes a unit tar to update it
// with: the same unit, as downloaded. It returns the install directory,
// what Inspect made of it, the unit tar and its release.
func installed(t *testing.T) (dir string, in Install, artifact string, rel *Release) {
	t.Helper()
	src := realExe(t)
	version := versionOf(t, src)
	dir = t.TempDir()
	current := filepath.Join(dir, exeName)
	copyFile(t, src, current)
	writeFiles(t, dir, coresFiles(version))
	writeFile(t, filepath.Join(dir, "LICENSE.txt"), "MIT")
	writeFile(t, filepath.Join(dir, MarkerFile), TypeNSISUser)
	artifact, rel = unitRelease(t, dir, version)
	in, err := Inspect(current)
	if err != nil {
		t.Fatal(err)
	}
	wantInstall(t, in, current, true)
	return dir, in, artifact, rel
}

// installEntries are what an install holds besides what an update keeps.
var installEntries = []string{"LICENSE.txt", "cores", exeName, MarkerFile}

// stage stages artifact for in and returns it with its executable's
// identity.
func stage(t *testing.T, artifact string, in Install, rel *Release) (string, os.FileInfo) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	staged, err := Stage(ctx, artifact, in, rel)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(staged) != filepath.Dir(in.Target.Path) {
		t.Errorf("staged in %s, want next to the target (%s)", filepath.Dir(staged), filepath.Dir(in.Target.Path))
	}
	return staged, stat(t, filepath.Join(staged, exeName))
}

// swap swaps staged in, as an update of rel's version does.
func swap(t *testing.T, staged string, in Install, rel *Release) {
	t.Helper()
	if err := Swap(staged, in.Target, Versions{From: "0.9.0", To: rel.Version}); err != nil {
		t.Fatal(err)
	}
}

// TestSwapRunningExe: Windows cannot overwrite or delete a running
// executable, only rename it, and cannot rename the directory holding it.
// A swap while the installed copy runs moves it (and the rest of the unit)
// into .old and puts the new unit in place; a restore moves it back; the
// running process is untouched throughout.
func TestSwapRunningExe(t *testing.T) {
	dir, in, artifact, rel := installed(t)
	current, oldExe := in.Target.Path, filepath.Join(OldPath(in.Target), exeName)
	running := stat(t, current)
	srv := startServe(t, current)

	// The smoke test runs the staged copy and judges the version it prints.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := Stage(ctx, artifact, in, withVersion(rel, "99.0.0")); !errors.Is(err, ErrSmoke) {
		t.Fatalf("staging with the wrong version: got %v, want ErrSmoke", err)
	}
	wantOnly(t, dir, installEntries...)
	staged, next := stage(t, artifact, in, rel)
	swap(t, staged, in, rel)
	wantSame(t, current, next, "the new version")
	wantSame(t, oldExe, running, "the running version, kept in .old")
	wantOnly(t, dir, append(installEntries, exeName+OldSuffix)...)
	wantVersion(t, current, rel.Version)
	if err := SmokeCores(ctx, current, rel.Version); err != nil {
		t.Error(err)
	}
	srv.wantServing(t)

	if err := Restore(in.Target, Versions{From: rel.Version, To: "0.9.0"}); err != nil {
		t.Fatal(err)
	}
	wantSame(t, current, running, "the running version, back in place")
	wantOnly(t, dir, installEntries...) // the failed version did not run: removed at once
	srv.wantServing(t)
}

// TestRunningVersionsWaitForTheNextStage: what cannot be removed because it
// runs (an older .old at the next swap, the failed version at a restore)
// moves aside, its process untouched, and the next Stage removes it once
// it no longer runs.
func TestRunningVersionsWaitForTheNextStage(t *testing.T) {
	dir, in, artifact, rel := installed(t)
	current, oldExe := in.Target.Path, filepath.Join(OldPath(in.Target), exeName)
	first := stat(t, current)
	staged, second := stage(t, artifact, in, rel)
	swap(t, staged, in, rel)
	// The previous version still runs (a handoff in progress) when the
	// next update comes.
	prev := startServe(t, oldExe)
	staged, third := stage(t, artifact, in, rel)
	swap(t, staged, in, rel)
	wantSame(t, current, third, "the newest version")
	wantSame(t, oldExe, second, "the version it replaced")
	wantSame(t, filepath.Join(leftover(t, dir, exeName+OldSuffix+deletedInfix), exeName), first, "the running older .old, moved aside")

	// The newest version runs, fails its health window and is rolled back.
	failed := startServe(t, current)
	if err := Restore(in.Target, Versions{From: rel.Version, To: "0.9.0"}); err != nil {
		t.Fatal(err)
	}
	wantSame(t, current, second, "the version rolled back to")
	wantSame(t, filepath.Join(leftover(t, dir, exeName+failedInfix), exeName), third, "the running failed version, moved aside")
	prev.wantServing(t)
	failed.wantServing(t)

	prev.stop(t)
	failed.stop(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := Stage(ctx, artifact, in, withVersion(rel, "99.0.0")); !errors.Is(err, ErrSmoke) {
		t.Fatalf("staging with the wrong version: got %v, want ErrSmoke", err)
	}
	wantOnly(t, dir, installEntries...)
}
