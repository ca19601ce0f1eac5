package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"hermes-desktop/app/cli"
	"hermes-desktop/backend"
	"hermes-desktop/backend/model"
	"hermes-desktop/backend/settings"
	"hermes-desktop/internal/testbin"
)

func TestMain(m *testing.M) { os.Exit(testbin.Main(m)) }

const readyWait = 30 * time.Second

var failedLine = regexp.MustCompile(`backend \S+ failed: `)

func getJSON(t *testing.T, url string) map[string]any {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var v map[string]any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("GET %s: not JSON: %q", url, body)
	}
	return v
}

func status(t *testing.T, l *testbin.Launcher) model.Status {
	t.Helper()
	out, errOut, code := l.CLI("status", "--json")
	if code != 0 {
		t.Fatalf("status --json: exit %d: %s", code, errOut)
	}
	var st model.Status
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("status --json: %v: %q", err, out)
	}
	return st
}

func recordFiles(t *testing.T, stateDir string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(stateDir, "records"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// stopAndCheck stops the launcher through the CLI and checks the promise:
// exit 0, no process of the tree left, no record left.
func stopAndCheck(t *testing.T, l *testbin.Launcher) {
	t.Helper()
	if out, errOut, code := l.CLI("stop"); code != 0 {
		t.Fatalf("stop: exit %d: %s %s", code, out, errOut)
	}
	code, err := l.WaitExit(15 * time.Second)
	if err != nil || code != 0 {
		t.Fatalf("launcher exit: code %d, err %v", code, err)
	}
	if left := testbin.WaitUntagged(l.Tag, 2*time.Second); len(left) > 0 {
		t.Errorf("processes left after stop: %v", left)
	}
	if recs := recordFiles(t, l.StateDir); len(recs) > 0 {
		t.Errorf("records left after stop: %v", recs)
	}
}

// Without hermes on PATH the default backend is the built-in dashboard:
// ready behind Hermes' auth gate (its /api/health is not public and the
// launcher does not hold a dashboard's token: readiness comes from the
// public /api/status), with a page to open.
func TestRunHeadlessBuiltinBackend(t *testing.T) {
	l := testbin.StartLauncher(t)
	r := l.WaitReady(1, readyWait)
	// The backend reports the app's version, as main hands it to the CLI.
	out, err := exec.Command(testbin.Path(t), "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	want := strings.TrimPrefix(strings.TrimSpace(string(out)), "hermes-desktop ")
	if got := getJSON(t, r.URL+"/api/status"); got["version"] != want {
		t.Fatalf("status: got %v, want version %q", got, want)
	}
	if resp, err := http.Get(r.URL + "/api/health"); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("health without the token: got %v %v, want 401 (the gate)", resp, err)
	}
	if !strings.Contains(l.Stdout.String(), "using backend:") {
		t.Errorf("run did not say which backend it chose:\n%s", l.Stdout.String())
	}
	st := status(t, l)
	if st.Instance.PID != l.Cmd.Process.Pid || st.Instance.StateDir != l.StateDir {
		t.Errorf("instance: got %+v, want pid %d state dir %s", st.Instance, l.Cmd.Process.Pid, l.StateDir)
	}
	if len(st.Backends) != 1 {
		t.Fatalf("backends: got %d, want 1", len(st.Backends))
	}
	b := st.Backends[0]
	if b.State != model.StateReady || b.PID != r.PID || b.Port != r.Port || len(b.Command) == 0 {
		t.Errorf("backend status: got %+v, want ready pid %d port %d", b, r.PID, r.Port)
	}
	if b.Kind != settings.KindDashboard || b.PageURL != r.URL+"/" {
		t.Errorf("backend: got kind %q page %q, want the dashboard's page %s/", b.Kind, b.PageURL, r.URL)
	}
	if recs := recordFiles(t, l.StateDir); len(recs) != 1 {
		t.Errorf("records while running: got %v, want one", recs)
	}
	stopAndCheck(t, l)
}

func TestThirdPartyBackend(t *testing.T) {
	l := testbin.StartLauncher(t,
		"--backend-cmd", "python3 -u -m http.server --bind 127.0.0.1 0",
		"--ready-regex", `port (\d+)`, "--health-path", "/")
	r := l.WaitReady(1, readyWait)
	resp, err := http.Get(r.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("GET /: got %d, want 200", resp.StatusCode)
	}
	stopAndCheck(t, l)
}

func TestCrashingBackendRestartsThenFails(t *testing.T) {
	l := testbin.StartLauncher(t, "--backend-cmd", "{bin} serve --host 127.0.0.1 --port 0 --crash-after 200ms --exit-code 3")
	l.WaitReady(4, readyWait) // the first run and three restarts
	if _, err := l.Stdout.WaitMatchN(failedLine, 1, readyWait); err != nil {
		t.Fatalf("no failure announced: %v\n%s", err, l.Stdout.String())
	}
	b := status(t, l).Backends[0]
	if b.State != model.StateFailed || b.Restarts != 3 {
		t.Errorf("status: got state %s restarts %d, want failed after 3", b.State, b.Restarts)
	}
	if !strings.Contains(b.LastError, "exited with code 3") || !strings.Contains(b.LastError, "giving up") {
		t.Errorf("last error not readable: %q", b.LastError)
	}
	if len(b.LogTail) == 0 {
		t.Errorf("failed backend has no log tail")
	}
	stopAndCheck(t, l)
}

func TestSIGTERMIgnoringBackendIsKilledWithItsChildren(t *testing.T) {
	l := testbin.StartLauncher(t, "--grace", "1s", "--backend-cmd",
		"{bin} serve --host 127.0.0.1 --port 0 --ignore-sigterm --spawn-children 2 --spawn-setsid-children 2")
	l.WaitReady(1, readyWait)
	if n := len(testbin.WaitTagged(t, l.Tag, 7, tagWait)); n != 7 { // launcher, shim, backend, 4 children
		t.Fatalf("tree before stop: got %d processes, want 7", n)
	}
	stopAndCheck(t, l)
}

func TestSignalsToLauncherTearDown(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			l := testbin.StartLauncher(t, "--backend-cmd", "{bin} serve --host 127.0.0.1 --port 0 --spawn-children 1")
			l.WaitReady(1, readyWait)
			if err := l.Signal(sig); err != nil {
				t.Fatal(err)
			}
			if code, err := l.WaitExit(15 * time.Second); err != nil || code != 0 {
				t.Fatalf("exit after %v: code %d err %v", sig, code, err)
			}
			if left := testbin.WaitUntagged(l.Tag, 2*time.Second); len(left) > 0 {
				t.Errorf("left after %v: %v", sig, left)
			}
			if recs := recordFiles(t, l.StateDir); len(recs) > 0 {
				t.Errorf("records left: %v", recs)
			}
		})
	}
}

func TestSecondInstanceExitsWithoutSpawning(t *testing.T) {
	l := testbin.StartLauncher(t)
	r := l.WaitReady(1, readyWait)
	before := len(testbin.Tagged(l.Tag))
	l2 := l.StartAnother()
	code, err := l2.WaitExit(15 * time.Second)
	if err != nil || code != 0 {
		t.Fatalf("second instance: code %d err %v, want exit 0", code, err)
	}
	if !strings.Contains(l2.Stdout.String(), "already running") {
		t.Errorf("second instance said: %q", l2.Stdout.String())
	}
	if strings.Contains(l2.Stdout.String(), " ready ") {
		t.Errorf("second instance started a backend: %q", l2.Stdout.String())
	}
	if after := len(testbin.Tagged(l.Tag)); after != before {
		t.Errorf("processes: got %d after the second launch, want %d", after, before)
	}
	if b := status(t, l).Backends[0]; b.PID != r.PID || b.State != model.StateReady {
		t.Errorf("first instance's backend changed: %+v", b)
	}
	// The instance's "no such backend" reaches the CLI as that kind of
	// error (a usage error), not as an opaque failure.
	if _, errOut, code := l.CLI("restart", "--backend", "nope"); code != cli.ExitUsage || !strings.Contains(errOut, `"nope"`) {
		t.Errorf("restart --backend nope: got exit %d %q, want %d naming the backend", code, errOut, cli.ExitUsage)
	}
	stopAndCheck(t, l)
}

func TestStatusWithoutInstance(t *testing.T) {
	bin := testbin.Path(t)
	l := &testbin.Launcher{Bin: bin, StateDir: t.TempDir(), HermesHome: t.TempDir(), Tag: testbin.Tag(t)}
	_, errOut, code := l.CLI("status")
	if code != cli.ExitNotRunning || !strings.Contains(errOut, "not running") {
		t.Errorf("status: got exit %d %q, want %d and a clear message", code, errOut, cli.ExitNotRunning)
	}
}

func TestRefusesUnsafeStateDir(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, dir string) string
		want  string
	}{
		{"symlink", func(t *testing.T, dir string) string {
			real := filepath.Join(dir, "real")
			must(t, os.Mkdir(real, 0o700))
			link := filepath.Join(dir, "link")
			must(t, os.Symlink(real, link))
			return link
		}, "symlink"},
		{"group-writable", func(t *testing.T, dir string) string {
			d := filepath.Join(dir, "gw")
			must(t, os.Mkdir(d, 0o700))
			must(t, os.Chmod(d, 0o770))
			return d
		}, "writable by group or others"},
		{"other-owner", func(t *testing.T, dir string) string {
			if os.Geteuid() != 0 {
				t.Skip("needs root to chown")
			}
			d := filepath.Join(dir, "other")
			must(t, os.Mkdir(d, 0o700))
			must(t, os.Chown(d, 65534, 65534))
			return d
		}, "not by you"},
		{"file", func(t *testing.T, dir string) string {
			f := filepath.Join(dir, "file")
			must(t, os.WriteFile(f, nil, 0o600))
			return f
		}, "not a directory"},
	}
	bin := testbin.Path(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			stateDir := tc.setup(t, t.TempDir())
			l := &testbin.Launcher{Bin: bin, StateDir: stateDir, HermesHome: t.TempDir(), Tag: testbin.Tag(t)}
			_, errOut, code := l.CLI("run", "--headless")
			if code != cli.ExitError || !strings.Contains(errOut, tc.want) {
				t.Errorf("got exit %d %q, want %d mentioning %q", code, errOut, cli.ExitError, tc.want)
			}
			if _, err := os.Lstat(filepath.Join(stateDir, "launcher.lock")); err == nil {
				t.Errorf("created a lock file in an unsafe state dir")
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// Settings saved by the window are used by the next run; a flag given on
// the command line wins over them.
func TestRunUsesSavedSettings(t *testing.T) {
	l := testbin.StartLauncher(t, "--no-boot-reap") // creates the state dir
	l.WaitReady(1, readyWait)
	// The page names the built-in backend rather than show its path.
	if b := status(t, l).Backends[0]; !b.Builtin {
		t.Errorf("default backend %v: got builtin false, want true", b.Command)
	}
	stopAndCheck(t, l)
	must(t, settings.Save(l.StateDir, settings.Settings{
		BackendCommand: "python3 -u -m http.server --bind 127.0.0.1 0", ReadyRegex: `port (\d+)`, HealthPath: "/",
	}))
	l2 := l.StartAnother()
	l2.WaitReady(1, readyWait)
	if cmd := status(t, l2).Backends[0].Command; len(cmd) == 0 || cmd[0] != "python3" {
		t.Errorf("saved backend command not used: %v", cmd)
	}
	if status(t, l2).Backends[0].Builtin {
		t.Error("python3 backend: got builtin true, want false")
	}
	stopAndCheck(t, l2)
	l3 := l.StartAnother("--backend-cmd", "{bin} serve --host 127.0.0.1 --port 0", "--ready-regex", backend.DefaultReadyRegex, "--health-path", "/api/health")
	l3.WaitReady(1, readyWait)
	if cmd := status(t, l3).Backends[0].Command; cmd[0] != l.Bin {
		t.Errorf("flag did not win over the saved setting: %v", cmd)
	}
	stopAndCheck(t, l3)
}
