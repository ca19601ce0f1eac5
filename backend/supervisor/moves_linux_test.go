package supervisor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"hermes-desktop/backend/instance"
	"hermes-desktop/backend/model"
	"hermes-desktop/backend/run"
	"hermes-desktop/backend/runspec"
	"hermes-desktop/contract/hermes"
	"hermes-desktop/contract/logs"
	"hermes-desktop/lockfile"
	"hermes-desktop/platform/proc"
)

// idleSupervisor is a Supervisor whose run goroutine is not running, so
// the test may call its steps itself, as run would. Its command would
// leave a file named "spawned" in dir if it ever ran.
type idleSupervisor struct {
	sup     *Supervisor
	rec     *recorder
	records *lockfile.Records
	dir     string
}

func newIdleSupervisor(t *testing.T) *idleSupervisor {
	t.Helper()
	dir := t.TempDir()
	spec := runspec.Spec{Name: "idle", Command: []string{"/bin/sh", "-c", `touch "$HERMES_HOME/spawned"; exec sleep 30`}, Grace: time.Second}
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
	out := logs.New(spec.Name, filepath.Join(dir, spec.Name+".log"), nil)
	t.Cleanup(out.Close)
	params := instance.Params{Owner: self, OwnerNonce: "owner", StateDir: dir, HermesHome: dir, Self: "/bin/false", Log: out}
	is := &idleSupervisor{rec: newRecorder(), records: records, dir: dir}
	is.sup = New(spec, instance.Local{Params: params}, out, records, Policy{Max: 3, Window: time.Minute},
		-1, slog.New(slog.DiscardHandler), is.rec.notify)
	t.Cleanup(func() {
		is.sup.halt() // should a refused step have spawned after all
		is.sup.clock.Stop()
	})
	return is
}

// steps are the supervisor's own entry points that move it to each state
// but starting and stopped, which every state may move to.
var steps = map[model.State]func(s *Supervisor) error{
	model.StateReady: func(s *Supervisor) error { return s.onReady(readyResult{port: 4242}) },
	model.StateExternal: func(s *Supervisor) error {
		ext, _ := run.NewExternal("http://127.0.0.1:4242/")
		return s.enterExternal(ext)
	},
	model.StateFailed:     func(s *Supervisor) error { return s.fail("a test gives up") },
	model.StateRestarting: func(s *Supervisor) error { return s.onCrash("a test crash") },
}

// TestSupervisorRefusesIllegalMoves puts an idle supervisor in each state
// and takes, through the supervisor's own code, every step the table
// forbids from there: each must be refused with ErrIllegalTransition
// before it acts (no state change, nothing published, no timer, no
// attached backend, no record; onReady would write the record of a run
// that does not exist, and panic).
func TestSupervisorRefusesIllegalMoves(t *testing.T) {
	n := 0
	for _, from := range allStates {
		for _, to := range allStates {
			if from == to || checkTransition(from, to) == nil {
				continue
			}
			step, ok := steps[to]
			if !ok {
				t.Fatalf("no step into %s in the test: got an illegal move %s -> %s, want a step to try it", to, from, to)
			}
			n++
			t.Run(string(from)+"->"+string(to), func(t *testing.T) {
				is := newIdleSupervisor(t)
				is.sup.st.State = from
				err := step(is.sup)
				if !errors.Is(err, ErrIllegalTransition) {
					t.Fatalf("step %s -> %s: got %v, want ErrIllegalTransition", from, to, err)
				}
				is.assertUntouched(t, from)
			})
		}
	}
	if n != 10 {
		t.Errorf("illegal moves between different states: got %d, want 10 (the table changed: update the steps)", n)
	}
}

// TestSupervisorRefusesLaunchWhileExternal: a launch may end in failed or
// restarting, which an attached backend may not move to, so it is refused
// before anything is spawned.
func TestSupervisorRefusesLaunchWhileExternal(t *testing.T) {
	is := newIdleSupervisor(t)
	is.sup.st.State = model.StateExternal
	if err := is.sup.launch(t.Context()); !errors.Is(err, ErrIllegalTransition) {
		t.Fatalf("launch while external: got %v, want ErrIllegalTransition", err)
	}
	is.assertUntouched(t, model.StateExternal)
}

func (is *idleSupervisor) assertUntouched(t *testing.T, state model.State) {
	t.Helper()
	s := is.sup
	if got := s.Status().State; got != state {
		t.Errorf("state after a refused step: got %s, want %s", got, state)
	}
	if got := is.rec.count(); got != 0 {
		t.Errorf("notices after a refused step: got %d, want 0", got)
	}
	if s.restarts.timer != nil || s.ext != nil || s.cur != nil {
		t.Errorf("after a refused step: got timer %v, attached %v, run %v, want none of them", s.restarts.timer != nil, s.ext != nil, s.cur != nil)
	}
	if rs, bad, err := is.records.Peek(); err != nil || len(rs)+len(bad) != 0 {
		t.Errorf("records after a refused step: got %d (+%d bad, err %v), want 0", len(rs), len(bad), err)
	}
	if _, err := os.Stat(filepath.Join(is.dir, "spawned")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the command after a refused step: stat got %v, want it never run", err)
	}
}

// TestSupervisorRestartWhileExternalCannotStart: Restart of an attached
// backend whose own command can no longer start leaves the attached one
// and fails, visibly: it moves through starting, from which failing is
// legal, instead of being stuck as external with nothing attached.
func TestSupervisorRestartWhileExternalCannotStart(t *testing.T) {
	port := healthServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != hermes.StatusPath {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, `{"ok":true}`)
	})
	script := filepath.Join(t.TempDir(), "hermes")
	body := fmt.Sprintf("#!/bin/sh\necho \"Hermes is already running at http://127.0.0.1:%d/\"\n", port)
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, supOptions{command: []string{script}, autostart: true})
	h.rec.waitEntered(t, model.StateExternal, 1)
	if err := os.Remove(script); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), waitLimit)
	defer cancel()
	if err := h.sup.Restart(ctx); err != nil {
		t.Fatalf("Restart while external: got %v, want nil (the failure is the backend's state)", err)
	}
	h.rec.waitEntered(t, model.StateFailed, 1)
	h.wantEntered(t, model.StateStarting, model.StateExternal, model.StateStarting, model.StateFailed)
	if st := h.sup.Status(); st.URL != "" || st.PageURL != "" {
		t.Errorf("failed status: got url %q page %q, want none (nothing is attached)", st.URL, st.PageURL)
	}
}
