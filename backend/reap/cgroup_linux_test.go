package reap

import (
	"math"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hermes-desktop/backend/reapreport"
	"hermes-desktop/internal/testbin"
	"hermes-desktop/lockfile"
	"hermes-desktop/platform/cgroup"
	"hermes-desktop/platform/proc"
)

// cgroupScene is a test's state dir and three backend cgroups in a cgroup
// of its own, each with a process: one whose record names a dead owner,
// one whose owner is alive (this test holds its lock), one no record names.
type cgroupScene struct {
	o     Options
	cgs   map[string]*cgroup.Cgroup
	procs map[string]proc.Identity
}

func newCgroupScene(t *testing.T) *cgroupScene {
	parent := testbin.Cgroup(t)
	base := t.TempDir()
	s := &cgroupScene{cgs: map[string]*cgroup.Cgroup{}, procs: map[string]proc.Identity{}}
	s.o = Options{StateDir: filepath.Join(base, "state"), HermesHome: base, UserHome: base,
		// No unrecorded orphan is ever old enough: only this test's own
		// records can make anything reapable, whatever else runs here.
		MinAge: new(time.Duration(math.MaxInt64)), Grace: time.Second, CgroupParent: parent.Path()}
	if err := lockfile.EnsureDir(s.o.StateDir); err != nil {
		t.Fatal(err)
	}
	rs, err := lockfile.OpenRecords(s.o.StateDir)
	if err != nil {
		t.Fatal(err)
	}
	liveOwner, _ := lockfile.NewNonce()
	lock, err := lockfile.AcquireOwner(s.o.StateDir, liveOwner)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = lock.Release() })
	self, _ := proc.Self()
	for _, what := range []string{"dead owner", "live owner", "no record"} {
		nonce, _ := lockfile.NewNonce()
		cg, err := cgroup.Create(path.Join(parent.Path(), lockfile.CgroupName(nonce)))
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("sleep", "100000")
		if err := testbin.StartIn(cmd, cg); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }) // ours
		id, _ := proc.Lookup(cmd.Process.Pid)
		s.cgs[what], s.procs[what] = cg, id
		owner := lockfile.Owner{Nonce: liveOwner, PID: self.PID, Start: self.Start}
		switch what {
		case "no record":
			continue
		case "dead owner":
			owner = deadOwner(t)
		}
		rid := id
		rid.BootID = proc.BootID()
		if err := rs.Write(&lockfile.Record{Schema: lockfile.RecordSchema, Name: "default", Nonce: nonce, BootID: proc.BootID(),
			Backend: &rid, Argv: []string{"sleep"}, Owner: owner, Created: time.Now().UTC(), Cgroup: cg.Path()}); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// deadOwner is the identity of a launcher that has exited.
func deadOwner(t *testing.T) lockfile.Owner {
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	id, _ := proc.Lookup(cmd.Process.Pid)
	_ = cmd.Wait()
	nonce, _ := lockfile.NewNonce()
	return lockfile.Owner{Nonce: nonce, PID: id.PID, Start: id.Start}
}

func (s *cgroupScene) decision(t *testing.T, r *reapreport.Report, what string) reapreport.CgroupDecision {
	t.Helper()
	for _, d := range r.Cgroups {
		if d.Cgroup == s.cgs[what].Path() {
			return d
		}
	}
	t.Fatalf("%s: no decision on %s in %+v", what, s.cgs[what].Path(), r.Cgroups)
	return reapreport.CgroupDecision{}
}

func TestReapCgroups(t *testing.T) {
	s := newCgroupScene(t)
	want := map[string][2]string{
		"dead owner": {string(reapreport.ActionReaped), reapreport.ReasonOwnerDead},
		"live owner": {string(reapreport.ActionSpared), reapreport.ReasonOwned},
		"no record":  {string(reapreport.ActionSpared), reapreport.ReasonFailClosed},
	}

	dry := s.o
	dry.DryRun = true
	r, err := Run(t.Context(), dry)
	if err != nil {
		t.Fatal(err)
	}
	for what, w := range want {
		d := s.decision(t, r, what)
		action := w[0]
		if action == string(reapreport.ActionReaped) {
			action = string(reapreport.ActionWouldReap)
		}
		if string(d.Action) != action || d.Reason != w[1] || d.Members != 1 || d.Detail == "" {
			t.Errorf("dry run: %s: got %+v, want %s/%s with 1 member", what, d, action, w[1])
		}
		if running, _ := proc.Running(s.procs[what]); !running {
			t.Errorf("dry run: %s: its process was killed", what)
		}
	}

	if r, err = Run(t.Context(), s.o); err != nil {
		t.Fatal(err)
	}
	for what, w := range want {
		d := s.decision(t, r, what)
		if string(d.Action) != w[0] || d.Reason != w[1] {
			t.Errorf("%s: got %s/%s (%s), want %s/%s", what, d.Action, d.Reason, d.Detail, w[0], w[1])
		}
		// The report names what it killed (or spared): pid and command line.
		if len(d.Processes) != 1 || d.Processes[0].PID != s.procs[what].PID || strings.Join(d.Processes[0].Cmdline, " ") != "sleep 100000" {
			t.Errorf("%s: processes %+v, want pid %d running sleep 100000", what, d.Processes, s.procs[what].PID)
		}
		running, _ := proc.Running(s.procs[what])
		_, openErr := cgroup.Open(s.cgs[what].Path())
		if reaped := w[0] == string(reapreport.ActionReaped); running == reaped || (openErr != nil) != reaped {
			t.Errorf("%s: process running %v, cgroup there %v; want both %v", what, running, openErr == nil, !reaped)
		}
	}
	if got := r.Summary(); !strings.Contains(got, "cgroups: reaped 1, spared 2") {
		t.Errorf("summary: got %q, want it to count the cgroups", got)
	}
	// The dead owner's record is gone; the live owner's stays.
	rs, _ := lockfile.OpenRecords(s.o.StateDir)
	recs, _, _ := rs.Peek()
	if len(recs) != 1 || recs[0].Cgroup != s.cgs["live owner"].Path() {
		t.Errorf("records after the reap: %d, want only the live owner's", len(recs))
	}
}

// A reap limited to some PIDs leaves cgroups alone.
func TestReapOnlyLeavesCgroupsAlone(t *testing.T) {
	s := newCgroupScene(t)
	o := s.o
	o.Only = []int{s.procs["no record"].PID}
	r, err := Run(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Cgroups) != 0 {
		t.Errorf("cgroups judged under --only: %+v", r.Cgroups)
	}
	if running, _ := proc.Running(s.procs["dead owner"]); !running {
		t.Error("the dead owner's process was killed by a reap limited to another PID")
	}
}
