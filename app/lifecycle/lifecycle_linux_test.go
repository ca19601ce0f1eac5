package lifecycle

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"hermes-desktop/backend"
	"hermes-desktop/backend/control/protocol"
	"hermes-desktop/backend/model"
	"hermes-desktop/backend/runspec"
	"hermes-desktop/internal/testbin"
	"hermes-desktop/internal/waitfor"
)

func TestMain(m *testing.M) { os.Exit(testbin.Main(m)) }

// fakeWindow stands in for the desktop window: Run blocks until Close, or
// until the test quits it as a user would.
type fakeWindow struct {
	l      *backend.Launcher
	runErr error              // if set, Run fails at once with it
	inRun  func(sig *Signals) // if set, called first in Run

	ran       chan struct{} // closed when Run starts
	quit      chan struct{} // closed by the test: the user quits the window
	closeC    chan struct{} // closed by the first Close
	closeOnce sync.Once

	closes, ends, focused atomic.Int32
	running               atomic.Bool // between Run's start and its return
	endedWhileRunning     atomic.Bool
}

func newFake(l *backend.Launcher) *fakeWindow {
	return &fakeWindow{l: l, ran: make(chan struct{}), quit: make(chan struct{}), closeC: make(chan struct{})}
}

func (w *fakeWindow) Run(sig *Signals) error {
	w.running.Store(true)
	defer w.running.Store(false)
	w.l.Pages().SetFocus(func() { w.focused.Add(1) }) // as the App's attach does
	if w.inRun != nil {
		w.inRun(sig)
	}
	close(w.ran)
	if w.runErr != nil {
		return w.runErr
	}
	select {
	case <-w.closeC:
	case <-w.quit:
	}
	return nil
}

func (w *fakeWindow) Close() {
	w.closes.Add(1)
	w.closeOnce.Do(func() { close(w.closeC) })
}

func (w *fakeWindow) End() {
	w.ends.Add(1)
	if w.running.Load() {
		w.endedWhileRunning.Store(true)
	}
}

// aRun is one Run in the background, with what it printed.
type aRun struct {
	cfg            backend.Config
	stdout, stderr *testbin.Buffer
	done           chan error
	window         chan *fakeWindow // the window Run made, if any
}

// config is a launcher configuration with one built-in backend, on a
// fresh state dir, tagged so that the test sees every process it left.
func config(t *testing.T) backend.Config {
	t.Helper()
	bin := testbin.Path(t)
	t.Setenv(testbin.TagEnv, testbin.Tag(t)) // the backend tree inherits it
	dir := t.TempDir()
	return backend.Config{
		StateDir: filepath.Join(dir, "state"), HermesHome: filepath.Join(dir, "home"), Self: bin,
		Backends:   []runspec.Spec{{Command: []string{bin, "serve", "--host", "127.0.0.1", "--port", "0"}}},
		NoBootReap: true,
		// In-process: backends' cgroups would go under the test's own
		// cgroup, which no test owns; the e2e tests cover containment.
		Containment: model.ContainmentProcessTree,
	}
}

// start runs Run on cfg in the background; with a window unless
// headless, adjusted by fake if not nil.
func start(t *testing.T, cfg backend.Config, headless bool, fake func(*fakeWindow)) *aRun {
	t.Helper()
	if headless {
		return startWith(t, cfg, Options{}, nil)
	}
	return startWith(t, cfg, Options{}, func(w *fakeWindow) {
		if fake != nil {
			fake(w)
		}
	})
}

// startWith runs Run on cfg with o in the background; with a window when
// fake is not nil, adjusted by it.
func startWith(t *testing.T, cfg backend.Config, o Options, fake func(*fakeWindow)) *aRun {
	t.Helper()
	r := &aRun{cfg: cfg, stdout: &testbin.Buffer{}, stderr: &testbin.Buffer{}, done: make(chan error, 1), window: make(chan *fakeWindow, 1)}
	if fake != nil {
		o.Window = func(l *backend.Launcher) Window {
			w := newFake(l)
			fake(w)
			r.window <- w
			return w
		}
	}
	go func() { r.done <- Run(cfg, r.stdout, r.stderr, o) }()
	t.Cleanup(func() {
		select {
		case <-r.done:
		default:
			stopCLI(t, cfg.StateDir)
			select {
			case <-r.done:
			case <-time.After(60 * time.Second):
				t.Errorf("Run did not return after a stop; stdout %q", r.stdout)
			}
		}
	})
	return r
}

// wait returns Run's result, failing the test if it does not come.
func (r *aRun) wait(t *testing.T) error {
	t.Helper()
	select {
	case err := <-r.done:
		r.done <- err // for the cleanup
		return err
	case <-time.After(60 * time.Second):
		t.Fatalf("Run did not return; stdout %q, stderr %q", r.stdout, r.stderr)
		return nil
	}
}

// waitServing waits until the instance answers on its control socket
// with its backend ready, and returns its status.
func waitServing(t *testing.T, stateDir string) model.Status {
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

// stopCLI runs `hermes-desktop stop`, a real second process, as a user
// would.
func stopCLI(t *testing.T, stateDir string) {
	t.Helper()
	out, err := exec.Command(testbin.Path(t), "stop", "--state-dir", stateDir).CombinedOutput()
	if err != nil {
		t.Errorf("hermes-desktop stop: %v: %s", err, out)
	}
}

// checkTornDown checks that a run that returned left nothing: no
// ownership record, and (through the tag's cleanup) no process.
func checkTornDown(t *testing.T, r *aRun) {
	t.Helper()
	if !strings.Contains(r.stdout.String(), "stopped\n") {
		t.Errorf("stdout: got %q, want it to end with the teardown's \"stopped\"", r.stdout)
	}
	records, _ := filepath.Glob(filepath.Join(r.cfg.StateDir, "records", "*.json"))
	if len(records) > 0 {
		t.Errorf("got records %q after the run, want none", records)
	}
}

func TestRunHeadlessStopsOnStopRequest(t *testing.T) {
	r := start(t, config(t), true, nil)
	waitServing(t, r.cfg.StateDir)
	stopCLI(t, r.cfg.StateDir)
	if err := r.wait(t); err != nil {
		t.Fatalf("Run: got %v, want nil", err)
	}
	checkTornDown(t, r)
}

// TestRunHeadlessStopsOnSIGTERM sends SIGTERM to this test process: the
// run catches it and tears down (without its handler the test binary
// would die of it).
func TestRunHeadlessStopsOnSIGTERM(t *testing.T) {
	r := start(t, config(t), true, nil)
	waitServing(t, r.cfg.StateDir)
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := r.wait(t); err != nil {
		t.Fatalf("Run: got %v, want nil", err)
	}
	checkTornDown(t, r)
}

// TestRunClosesTheWindowOnStop: a stop from elsewhere closes the window,
// and the teardown comes after the window is gone and ended.
func TestRunClosesTheWindowOnStop(t *testing.T) {
	r := start(t, config(t), false, nil)
	w := <-r.window
	<-w.ran
	waitServing(t, r.cfg.StateDir)
	stopCLI(t, r.cfg.StateDir)
	if err := r.wait(t); err != nil {
		t.Fatalf("Run: got %v, want nil", err)
	}
	if w.closes.Load() == 0 || w.ends.Load() != 1 || w.endedWhileRunning.Load() {
		t.Errorf("got %d closes, %d ends (while running: %v); want the window closed, then ended once after Run",
			w.closes.Load(), w.ends.Load(), w.endedWhileRunning.Load())
	}
	checkTornDown(t, r)
}

// TestRunEndsWhenTheWindowQuits: Quit in the window (Run returns by
// itself) tears everything down; nothing was asked to close it.
func TestRunEndsWhenTheWindowQuits(t *testing.T) {
	r := start(t, config(t), false, nil)
	w := <-r.window
	<-w.ran
	waitServing(t, r.cfg.StateDir)
	close(w.quit)
	if err := r.wait(t); err != nil {
		t.Fatalf("Run: got %v, want nil", err)
	}
	if w.closes.Load() != 0 || w.ends.Load() != 1 {
		t.Errorf("got %d closes, %d ends; want 0 and 1", w.closes.Load(), w.ends.Load())
	}
	checkTornDown(t, r)
}

// TestRunWithoutItsWindowRunsHeadless: a window that cannot run at all
// leaves the launcher serving until it is stopped.
func TestRunWithoutItsWindowRunsHeadless(t *testing.T) {
	r := start(t, config(t), false, func(w *fakeWindow) { w.runErr = errors.New("no display") })
	w := <-r.window
	<-w.ran
	waitServing(t, r.cfg.StateDir) // still serving after the window failed
	select {
	case err := <-r.done:
		t.Fatalf("Run returned %v with the window failed, want it to serve until stopped", err)
	default:
	}
	stopCLI(t, r.cfg.StateDir)
	if err := r.wait(t); err != nil {
		t.Fatalf("Run: got %v, want nil", err)
	}
	if !strings.Contains(r.stderr.String(), "the window could not run (no display); running headless") || w.ends.Load() != 1 {
		t.Errorf("got stderr %q and %d ends; want the reason and one End", r.stderr, w.ends.Load())
	}
	checkTornDown(t, r)
}

// TestRunSecondLaunchFocusesTheFirst: a second Run on the same state dir
// makes no window and no backend; it asks the first to show itself.
func TestRunSecondLaunchFocusesTheFirst(t *testing.T) {
	cfg := config(t)
	first := start(t, cfg, false, nil)
	w := <-first.window
	<-w.ran
	waitServing(t, cfg.StateDir)
	second := start(t, cfg, false, nil)
	if err := second.wait(t); err != nil {
		t.Fatalf("second Run: got %v, want nil", err)
	}
	select {
	case <-second.window:
		t.Error("the second Run made a window, want none")
	default:
	}
	if w.focused.Load() != 1 || !strings.Contains(second.stdout.String(), "already running") {
		t.Errorf("got %d focus calls on the first window, second's stdout %q; want 1 and \"already running\"",
			w.focused.Load(), second.stdout)
	}
	stopCLI(t, cfg.StateDir)
	if err := first.wait(t); err != nil {
		t.Fatalf("first Run: got %v, want nil", err)
	}
	checkTornDown(t, first)
}

// TestRunReclaimsSignalsFromTheToolkit: Wails takes SIGTERM for a handler
// of its own, which would hide the window to the tray; after Reclaim the
// run's handler gets it again and stops with full teardown.
func TestRunReclaimsSignalsFromTheToolkit(t *testing.T) {
	toolkit := make(chan os.Signal, 1)
	r := start(t, config(t), false, func(w *fakeWindow) {
		w.inRun = func(sig *Signals) {
			// What Wails does before OnStartup: a handler of its own.
			signal.Reset(syscall.SIGTERM, syscall.SIGINT)
			signal.Notify(toolkit, syscall.SIGTERM, syscall.SIGINT)
			sig.Reclaim()
		}
	})
	t.Cleanup(func() { signal.Stop(toolkit) })
	w := <-r.window
	<-w.ran
	waitServing(t, r.cfg.StateDir)
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := r.wait(t); err != nil {
		t.Fatalf("Run: got %v, want nil", err)
	}
	select {
	case s := <-toolkit:
		t.Errorf("the toolkit's handler got %v, want the run's alone", s)
	default:
	}
	if w.closes.Load() == 0 {
		t.Error("got no Close after SIGTERM, want the window closed")
	}
	checkTornDown(t, r)
}

// TestRunHandsOverWithoutTeardown: a handoff to a successor (`hermes-desktop
// handoff`, adopt mode) closes the window and ends the run without
// touching the backends, which the successor now serves.
func TestRunHandsOverWithoutTeardown(t *testing.T) {
	cfg := config(t)
	bin := testbin.Path(t)
	// The successor's command line, as `run` would pass on its own.
	cfg.Args = []string{"run", "--headless", "--state-dir", cfg.StateDir, "--no-boot-reap", "--containment", string(model.ContainmentProcessTree)}
	t.Setenv("HERMES_HOME", cfg.HermesHome)
	r := start(t, cfg, false, nil)
	w := <-r.window
	<-w.ran
	before := waitServing(t, cfg.StateDir)
	if out, err := exec.Command(bin, "handoff", "--to", bin, "--mode", "adopt", "--state-dir", cfg.StateDir).CombinedOutput(); err != nil {
		t.Fatalf("hermes-desktop handoff: %v: %s", err, out)
	}
	if err := r.wait(t); err != nil {
		t.Fatalf("Run: got %v, want nil", err)
	}
	out := r.stdout.String()
	if w.closes.Load() == 0 || !strings.Contains(out, "handed over to the new instance") || strings.Contains(out, "stopping") {
		t.Errorf("got %d closes, stdout %q; want the window closed and a handover without teardown", w.closes.Load(), out)
	}
	after := waitServing(t, cfg.StateDir)
	if after.Instance.PID == os.Getpid() || after.Backends[0].PID != before.Backends[0].PID {
		t.Errorf("got instance %d with backend %d, want the successor serving backend %d", after.Instance.PID, after.Backends[0].PID, before.Backends[0].PID)
	}
	stopCLI(t, cfg.StateDir) // the successor tears down
}

// TestRunOpensTheWindowWhileTheCoreIsFound: the window runs while the core
// is looked up and the backends start (unpacking a core takes 100 ms on a
// fresh state dir), and the announcement names the core found. A lookup
// that waits for the window would hang a run that did them one after the
// other.
func TestRunOpensTheWindowWhileTheCoreIsFound(t *testing.T) {
	cfg := config(t)
	windowUp := make(chan struct{})
	cfg.LocateCore = func() string { <-windowUp; return "" }
	var claimed atomic.Pointer[string]
	r := startWith(t, cfg, Options{Claimed: func(core string) { claimed.Store(&core) }}, func(w *fakeWindow) {
		w.inRun = func(*Signals) { close(windowUp) }
	})
	w := <-r.window
	<-w.ran
	waitServing(t, cfg.StateDir)
	if got := claimed.Load(); got == nil || *got != cfg.Self {
		t.Errorf("Claimed got %v, want the app's own executable (no core found)", got)
	}
	close(w.quit)
	if err := r.wait(t); err != nil {
		t.Fatalf("Run: got %v, want nil", err)
	}
	checkTornDown(t, r)
}

// TestRunQuitBeforeTheBackendsStarted: a window quit while the core is
// still being looked up ends the run only once the start is over, and the
// teardown then takes what it started.
func TestRunQuitBeforeTheBackendsStarted(t *testing.T) {
	cfg := config(t)
	release := make(chan struct{})
	cfg.LocateCore = func() string { <-release; return "" }
	r := startWith(t, cfg, Options{}, func(*fakeWindow) {})
	w := <-r.window
	<-w.ran
	close(w.quit)
	select {
	case err := <-r.done:
		t.Fatalf("Run returned (%v) while its start was still under way", err)
	case <-time.After(200 * time.Millisecond):
	}
	close(release)
	if err := r.wait(t); err != nil {
		t.Fatalf("Run: got %v, want nil", err)
	}
	checkTornDown(t, r)
}
