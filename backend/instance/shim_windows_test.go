package instance_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hermes-desktop/backend/instance"
	"hermes-desktop/backend/run"
	"hermes-desktop/backend/runspec"
	"hermes-desktop/backend/settings"
	"hermes-desktop/contract/logs"
	"hermes-desktop/internal/testbin"
	"hermes-desktop/lockfile"
	"hermes-desktop/platform/job"
	"hermes-desktop/platform/proc"
)

// Backends behind the watchdog shim on Windows, as the launcher starts
// them by default: hermes-desktop.exe watchdog running the built-in
// backend, which starts fault children; every process counted in the
// process table.
//
// Wine delivers no console control events: the CTRL_BREAK the shim sends
// the backend does not arrive there, so the shim kills the tree at once
// (the launcher asks the shim itself with the stop message on its
// lifeline, which needs no console).

func TestMain(m *testing.M) { os.Exit(testbin.Main(m)) }

// grace is the backends' grace period in these tests: long, so that a
// teardown that waited it out (nothing gained: see TestShimStopWindows)
// shows.
const grace = 20 * time.Second

// shimmed is a backend a test started behind the shim.
type shimmed struct {
	inst *instance.Instance
	tree *testbin.Tree
	log  *logs.Log
}

// spawnShimmed starts the built-in backend with args behind the shim,
// releases it and waits until it is ready and its tree (shim, backend and
// the children args ask for) is running. Cleanup stops it and fails the
// test if any of the tree is left.
func spawnShimmed(t *testing.T, treeSize int, args ...string) *shimmed {
	t.Helper()
	exe := testbin.Path(t)
	spec := runspec.Spec{
		Name: "win", Kind: settings.KindServe, Grace: grace, StartTimeout: 30 * time.Second,
		Command: append([]string{exe, "serve", "--host", "127.0.0.1", "--port", "0"}, args...),
	}
	if err := spec.ApplyDefaults(exe); err != nil {
		t.Fatal(err)
	}
	owner, err := proc.Self()
	if err != nil {
		t.Fatal(err)
	}
	nonce, err := lockfile.NewNonce()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	out := logs.New(spec.Name, filepath.Join(dir, "backend.log"), nil)
	t.Cleanup(out.Close)
	inst, err := instance.Spawn(instance.Params{
		Spec: &spec, Owner: owner, OwnerNonce: nonce, StateDir: dir, HermesHome: dir,
		Self: exe, ViaShim: true, Log: out, Contain: instance.PlanContainment(""),
	})
	if err != nil {
		t.Fatalf("spawn behind the shim: %v", err)
	}
	s := &shimmed{inst: inst, tree: testbin.FollowTree(t, inst.Leader()), log: out}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("backend log:\n%s", strings.Join(out.Tail(200), "\n"))
		}
	})
	t.Cleanup(func() { _ = inst.Stop() }) // first: the tree goes
	if err := inst.Release(); err != nil {
		t.Fatal(err)
	}
	s.awaitReady(t)
	s.tree.WaitRunning(treeSize, 10*time.Second)
	s.checkNoWarnings(t)
	return s
}

// checkNoWarnings fails the test if the launcher warned in the backend's
// log: that the shim could not be put in a job of its backend's, say.
func (s *shimmed) checkNoWarnings(t *testing.T) {
	t.Helper()
	for _, line := range s.log.Tail(200) {
		if strings.Contains(line, "warning") {
			t.Errorf("launcher's log: got %q, want no warning", line)
		}
	}
}

// awaitReady waits for readiness and checks the port answers HTTP.
func (s *shimmed) awaitReady(t *testing.T) {
	t.Helper()
	port, err := s.inst.AwaitReady(context.Background())
	if err != nil {
		t.Fatalf("ready: %v", err)
	}
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/api/status", port))
	if err != nil {
		t.Fatalf("backend on port %d: %v", port, err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("backend /api/status: got HTTP %d, want 200", resp.StatusCode)
	}
}

// checkBackendID checks that the shim reported its child, by PID and start
// marker, as the process table sees it.
func (s *shimmed) checkBackendID(t *testing.T) {
	t.Helper()
	select {
	case <-s.inst.BackendKnown():
	case <-time.After(10 * time.Second):
		t.Fatal("the shim never reported the backend")
	}
	id := s.inst.BackendID()
	p, err := proc.Stat(id.PID)
	if err != nil {
		t.Fatalf("reported backend %s: %v", id, err)
	}
	if leader := s.inst.Leader(); p.PPID != leader.PID || p.Start != id.Start || id.PID == leader.PID {
		t.Errorf("reported backend: got %s, want a child of the shim %s; the table says parent %d, start %q",
			id, leader, p.PPID, p.Start)
	}
}

// awaitExited waits for the instance's waiter to finish, within d.
func (s *shimmed) awaitExited(t *testing.T, d time.Duration) {
	t.Helper()
	select {
	case <-s.inst.Exited():
	case <-time.After(d):
		t.Fatalf("instance not exited after %v", d)
	}
}

// The default configuration on Windows: a backend behind the shim becomes
// ready, and the shim reports it. Before the shim's pipes were passed as
// inherited handles, Spawn failed here ("not supported by windows").
func TestShimSpawnReadyWindows(t *testing.T) {
	s := spawnShimmed(t, 3, "--spawn-children=1")
	s.checkBackendID(t)
	if got, want := s.inst.ViaShim(), true; got != want {
		t.Errorf("ViaShim: got %v, want %v", got, want)
	}
}

// The launcher's death, as the shim sees it: the launcher's end of the
// lifeline closes. The shim tears the tree down on its own: the backend
// and its children, one in the backend's console group and one in a group
// of its own. The backend does not watch its parent (--no-parent-watch),
// so only the shim can end it.
func TestShimLifelineEndsTreeWindows(t *testing.T) {
	s := spawnShimmed(t, 4, "--spawn-children=1", "--spawn-setsid-children=1", "--no-parent-watch")
	s.checkBackendID(t)
	ids := s.tree.Running()
	start := time.Now()
	s.inst.CloseShimPipes() // as if the launcher died
	left := s.tree.WaitGone(grace + 3*time.Second)
	took := time.Since(start)
	if len(left) > 0 {
		t.Fatalf("after the lifeline closed: got %v still running after %v, want none", left, took)
	}
	t.Logf("tree of %d gone %v after the lifeline closed", len(ids), took)
	if took >= grace {
		t.Errorf("teardown took %v, want less than the %v grace: the shim asks the backend, or kills it at once where it cannot", took, grace)
	}
	s.awaitExited(t, run.ExitWait)
}

// A stop request ends the whole tree, without waiting out the grace: the
// launcher asks the shim with the stop message on its lifeline (a shim
// without a console, as the desktop build's, hears no console event), and
// the shim asks the backend with CTRL_BREAK on the backend's console or,
// where it cannot (Wine has no console events), kills the tree at once.
// Before the stop message, Stop took the grace and the kill margin.
func TestShimStopWindows(t *testing.T) {
	s := spawnShimmed(t, 4, "--spawn-children=1", "--spawn-setsid-children=1")
	ids := s.tree.Running()
	start := time.Now()
	if err := s.inst.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	took := time.Since(start)
	if left := s.tree.WaitGone(time.Second); len(left) > 0 {
		t.Fatalf("after Stop returned: got %v still running, want none", left)
	}
	t.Logf("tree of %d gone %v after Stop", len(ids), took)
	if took >= grace {
		t.Errorf("Stop took %v, want less than the %v grace: a shim without a console hears the stop message on its lifeline, then asks the backend or kills it at once", took, grace)
	}
	if st := s.inst.ExitStatus(); st.Unknown {
		t.Errorf("exit status: got %+v, want the shim's", st)
	}
}

// A handover's job is a copy of the tree's job handle that the caller
// owns: it still names the job, holding the shim, once the instance has
// closed its own (the tree gone, a later backend's job free to take the
// value). Before, the handover carried the instance's own handle, read
// without its lock and passed on after the waiter might have closed it.
func TestHandoverJobIsACopyWindows(t *testing.T) {
	s := spawnShimmed(t, 2)
	h, err := s.inst.Handover()
	if err != nil {
		t.Fatalf("Handover: %v", err)
	}
	if h.Job == 0 {
		t.Fatal("Handover: got no job, want a copy of the tree's")
	}
	copied, err := job.Inherit(h.Job)
	if err != nil {
		t.Fatalf("the handover's job: %v", err)
	}
	defer copied.Close()
	shim := s.inst.Leader().PID
	if in, err := copied.Holds(shim); err != nil || !in {
		t.Errorf("the handover's job holds shim %d: got %v, %v; want true", shim, in, err)
	}
	if err := s.inst.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if _, err := job.Inherit(h.Job); err != nil {
		t.Errorf("the handover's job after the instance closed its own: got %v, want a job still", err)
	}
}
