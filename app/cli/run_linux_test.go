package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"hermes-desktop/app/lifecycle"
	"hermes-desktop/backend"
	"hermes-desktop/backend/control/protocol"
	"hermes-desktop/backend/model"
	"hermes-desktop/internal/testbin"
	"hermes-desktop/internal/waitfor"
	"hermes-desktop/platform/cmdline"
)

func TestMain(m *testing.M) { os.Exit(testbin.Main(m)) }

// stubWindow is the window main would give: it shows nothing and runs
// until the lifecycle closes it.
type stubWindow struct {
	self   string
	closed chan struct{}
	once   sync.Once
}

func (w *stubWindow) Run(*lifecycle.Signals) error { <-w.closed; return nil }
func (w *stubWindow) Close()                       { w.once.Do(func() { close(w.closed) }) }
func (w *stubWindow) End()                         {}

// TestRunWindowAndHeadlessShareTheLifecycle runs `run` in-process as main
// does, with the window and without: both go through one lifecycle, which
// opens the launcher, makes the window only where one can show, serves
// until `hermes-desktop stop` (a real second process) and tears down.
func TestRunWindowAndHeadlessShareTheLifecycle(t *testing.T) {
	cases := []struct {
		name       string
		args       []string
		available  bool
		wantWindow bool
		wantMode   string
		wantOut    string
	}{
		{"window", nil, true, true, "gui", ""},
		{"headless flag", []string{"--headless"}, true, false, "headless", ""},
		{"no display", nil, false, false, "headless", "running headless: no display here"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			bin := testbin.Path(t)
			t.Setenv(testbin.TagEnv, testbin.Tag(t))
			dir := t.TempDir()
			t.Setenv("HERMES_HOME", filepath.Join(dir, "home"))
			state := filepath.Join(dir, "state")
			made := make(chan *stubWindow, 1)
			p := Program{
				Version:      "1.2.3",
				GUIAvailable: func() (bool, string) { return tc.available, "no display here" },
				Window: func(l *backend.Launcher, self string) lifecycle.Window {
					w := &stubWindow{self: self, closed: make(chan struct{})}
					made <- w
					return w
				},
			}
			// The shim is the app's own executable, here the test binary,
			// which has no watchdog verb: --no-shim.
			args := append([]string{"run", "--state-dir", state, "--no-shim", "--no-boot-reap", "--containment", "process-tree",
				"--backend-cmd", cmdline.Join([]string{bin, "serve", "--host", "127.0.0.1", "--port", "0"})}, tc.args...)
			var stdout, stderr testbin.Buffer // the launcher's announcements come from its goroutines
			code := make(chan int, 1)
			go func() { code <- Main(args, &stdout, &stderr, p) }()
			st := waitReady(t, state)
			if st.Instance.UI != tc.wantMode || st.Instance.Version != "1.2.3" {
				t.Errorf("got mode %q, version %q; want %q, 1.2.3", st.Instance.UI, st.Instance.Version, tc.wantMode)
			}
			if out, err := exec.Command(bin, "stop", "--state-dir", state).CombinedOutput(); err != nil {
				t.Errorf("hermes-desktop stop: %v: %s", err, out)
			}
			select {
			case c := <-code:
				if c != ExitOK {
					t.Errorf("got exit %d (stderr %q), want %d", c, stderr.String(), ExitOK)
				}
			case <-time.After(60 * time.Second):
				t.Fatal("run did not return after a stop")
			}
			var w *stubWindow
			select {
			case w = <-made:
			default:
			}
			if (w != nil) != tc.wantWindow {
				t.Errorf("got a window %v, want %v", w != nil, tc.wantWindow)
			}
			self, _ := os.Executable()
			if w != nil && w.self != self {
				t.Errorf("window's executable: got %q, want %q", w.self, self)
			}
			if !strings.Contains(stdout.String(), tc.wantOut) || !strings.HasSuffix(stdout.String(), "stopped\n") {
				t.Errorf("stdout: got %q, want %q and the teardown's \"stopped\"", stdout.String(), tc.wantOut)
			}
		})
	}
}

// waitReady waits until the instance on stateDir answers with its backend
// ready, and returns its status.
func waitReady(t *testing.T, stateDir string) model.Status {
	t.Helper()
	var st model.Status
	var err error
	if !waitfor.Try(30*time.Second, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		st, err = protocol.OpStatus.Call(ctx, stateDir, "", protocol.None{})
		return err == nil && len(st.Backends) == 1 && st.Backends[0].State == model.StateReady
	}) {
		t.Fatalf("no ready instance on %s: %v", stateDir, err)
	}
	return st
}
