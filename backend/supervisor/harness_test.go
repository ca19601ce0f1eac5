//go:build linux

// A harness that runs a real Supervisor against real /bin/sh children and
// records what it publishes. Linux only: grandchildren reparented to init
// are recognised as gone by their zombie state in /proc/PID/stat.

package supervisor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"hermes-desktop/backend/instance"
	"hermes-desktop/backend/leakguard"
	"hermes-desktop/backend/model"
	"hermes-desktop/backend/run"
	"hermes-desktop/backend/runspec"
	"hermes-desktop/contract/logs"
	"hermes-desktop/internal/waitfor"
	"hermes-desktop/lockfile"
	"hermes-desktop/platform/proc"
)

// waitLimit bounds every wait for the supervisor to reach a state.
const waitLimit = 10 * time.Second

// Child scripts. $HERMES_HOME is the test's state dir (the supervisor passes
// it to every backend); "children" there lists grandchildren to check.
const (
	scriptReadyLine  = `echo "HERMES_BACKEND_READY port=%d"; exec sleep 30`
	scriptReadyFile  = `echo '{"port":%d}' > "$HERMES_DESKTOP_READY_FILE"; exec sleep 30`
	scriptReadyChild = `sleep 30 & echo $! >> "$HERMES_HOME/children"; echo "HERMES_BACKEND_READY port=%d"; wait`
	scriptCrash      = `echo boom >&2; exit 1`
	scriptSilent     = `exec sleep 30`
)

// notice is one call of the supervisor's notify callback.
type notice struct {
	state   model.State
	entered bool
	tree    bool // the status carried a tree sample
}

// recorder keeps every notification, in order.
type recorder struct {
	mu      sync.Mutex // guards everything below
	notices []notice
	pids    []int         // every backend PID the status named
	changed chan struct{} // closed and replaced on every notice
}

func newRecorder() *recorder { return &recorder{changed: make(chan struct{})} }

func (r *recorder) notify(st model.BackendStatus, entered bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.notices = append(r.notices, notice{state: st.State, entered: entered, tree: st.Tree != nil})
	if st.PID != 0 && !slices.Contains(r.pids, st.PID) {
		r.pids = append(r.pids, st.PID)
	}
	close(r.changed)
	r.changed = make(chan struct{})
}

// entered returns the states entered so far, in order.
func (r *recorder) entered() []model.State {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []model.State
	for _, n := range r.notices {
		if n.entered {
			out = append(out, n.state)
		}
	}
	return out
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.notices)
}

func (r *recorder) allPIDs() []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.pids)
}

// waitFor blocks until cond holds over the notices so far.
func (r *recorder) waitFor(t *testing.T, what string, cond func([]notice) bool) {
	t.Helper()
	deadline := time.After(waitLimit)
	for {
		r.mu.Lock()
		ok, changed := cond(r.notices), r.changed
		r.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("waiting for %s: got states %s, want it within %v", what, summarize(r.entered()), waitLimit)
		}
	}
}

// summarize shows a long state sequence by its count and last states.
func summarize(states []model.State) string {
	const keep = 12
	if len(states) <= keep {
		return fmt.Sprint(states)
	}
	return fmt.Sprintf("%d states, ending ...%v", len(states), states[len(states)-keep:])
}

// waitEntered waits until state has been entered n times in all.
func (r *recorder) waitEntered(t *testing.T, state model.State, n int) {
	t.Helper()
	r.waitFor(t, fmt.Sprintf("%s entered %d time(s)", state, n), func(ns []notice) bool {
		c := 0
		for _, x := range ns {
			if x.entered && x.state == state {
				c++
			}
		}
		return c >= n
	})
}

// supOptions shape one supervisor under test; zero values are usable.
type supOptions struct {
	script       string        // run as /bin/sh -c script
	command      []string      // overrides script when set
	policy       Policy        // zero: max 0, every crash fails at once
	startTimeout time.Duration // 0: waitLimit
	sample       time.Duration // leak guard sampling period; 0: off
	autostart    bool
}

type supHarness struct {
	sup     *Supervisor
	rec     *recorder
	records *lockfile.Records
	dir     string
	owner   string // the owner nonce the records must name
	cancel  context.CancelFunc
	once    sync.Once
}

// newHarness runs a supervisor until the test ends. Its cleanup
// cancels the run context, waits for run to return and checks that every
// process the test started is gone and no record is left.
func newHarness(t *testing.T, o supOptions) *supHarness {
	t.Helper()
	dir := t.TempDir()
	spec := runspec.Spec{Name: "unit", Command: o.command, Grace: 2 * time.Second, StartTimeout: o.startTimeout}
	if spec.Command == nil {
		spec.Command = []string{"/bin/sh", "-c", o.script}
	}
	if spec.StartTimeout == 0 {
		spec.StartTimeout = waitLimit
	}
	if err := spec.ApplyDefaults("/bin/false"); err != nil {
		t.Fatal(err)
	}
	records, err := lockfile.OpenRecords(dir)
	if err != nil {
		t.Fatal(err)
	}
	self, err := proc.Self()
	if err != nil {
		t.Fatal(err)
	}
	ownerNonce, err := lockfile.NewNonce()
	if err != nil {
		t.Fatal(err)
	}
	out := logs.New(spec.Name, filepath.Join(dir, spec.Name+".log"), nil)
	t.Cleanup(out.Close) // runs last: after the supervisor is gone
	lg := leakguard.Config{SampleInterval: -1}
	if o.sample > 0 {
		lg.SampleInterval = o.sample
	}
	params := instance.Params{
		Owner: self, OwnerNonce: ownerNonce, StateDir: dir, HermesHome: dir,
		Self: "/bin/false", ViaShim: false, Log: out, LeakGuard: lg,
		// No orphan reclaimer: a direct child needs none (instance.Params allows nil).
	}
	h := &supHarness{rec: newRecorder(), records: records, dir: dir, owner: ownerNonce}
	h.sup = New(spec, instance.Local{Params: params}, out, records, o.policy, lg.SampleInterval, slog.New(slog.DiscardHandler), h.rec.notify)
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel = cancel
	go h.sup.serve(ctx, o.autostart, nil, model.BackendStatus{})
	t.Cleanup(func() { h.shutdown(t) })
	return h
}

// shutdown cancels the run context, waits for run to return and checks
// that nothing the test started survives. It is idempotent.
func (h *supHarness) shutdown(t *testing.T) {
	t.Helper()
	h.once.Do(func() {
		h.cancel()
		select {
		case <-h.sup.Done():
		case <-time.After(waitLimit + run.ExitWait):
			t.Errorf("run did not return after its context ended")
			return
		}
		for _, pid := range h.rec.allPIDs() {
			assertReaped(t, pid)
		}
		for _, pid := range h.children(t) {
			waitGone(t, pid)
		}
		if rs, bad, err := h.records.Peek(); err != nil || len(rs)+len(bad) != 0 {
			t.Errorf("records left after run returned: got %d (+%d bad, err %v), want 0", len(rs), len(bad), err)
		}
	})
}

// children returns the grandchildren the scripts listed.
func (h *supHarness) children(t *testing.T) []int {
	data, err := os.ReadFile(filepath.Join(h.dir, "children"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, f := range strings.Fields(string(data)) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("children file: %v", err)
		}
		pids = append(pids, pid)
	}
	return pids
}

func (h *supHarness) wantEntered(t *testing.T, want ...model.State) {
	t.Helper()
	if got := h.rec.entered(); !slices.Equal(got, want) {
		t.Errorf("states entered: got %v, want %v", got, want)
	}
}

// assertReaped checks that a child of ours is gone and reaped: a zombie
// still answers kill(pid, 0).
func assertReaped(t *testing.T, pid int) {
	t.Helper()
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("kill(%d, 0) after teardown: got %v, want ESRCH", pid, err)
	}
}

// waitReaped waits for the detached instance's waiter to reap our child.
// Polling: the test has no handle on that waiter.
func waitReaped(t *testing.T, pid int) {
	t.Helper()
	if !waitfor.Try(waitLimit, func() bool { return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) }) {
		t.Fatalf("pid %d not reaped within %v: got it alive or a zombie, want ESRCH", pid, waitLimit)
	}
}

// waitGone waits for a process that is not our child to die. It was
// reparented to init, which reaps when it likes (or never, if PID 1 does not
// reap), so a zombie counts as gone. Polling: no event tells us about a
// process we are not the parent of.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	var err error
	if !waitfor.Try(waitLimit, func() bool {
		err = syscall.Kill(pid, 0)
		return errors.Is(err, syscall.ESRCH) || isZombie(pid)
	}) {
		t.Errorf("pid %d still alive after teardown: kill(pid, 0) got %v, want ESRCH", pid, err)
	}
}

func isZombie(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	end := strings.LastIndexByte(string(data), ')')
	return end >= 0 && strings.HasPrefix(string(data[end+1:]), " Z")
}

// healthServer answers every request with status and body, and returns the
// loopback port it listens on.
func healthServer(t *testing.T, handler http.HandlerFunc) int {
	t.Helper()
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)
	_, port, err := net.SplitHostPort(srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	n, _ := strconv.Atoi(port)
	return n
}

// healthy answers the default health path as a current Hermes does.
func healthy(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != runspec.DefaultHealthPath {
		http.NotFound(w, r)
		return
	}
	fmt.Fprint(w, `{"ok":true}`)
}
