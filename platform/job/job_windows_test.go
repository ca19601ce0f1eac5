package job

import (
	"os"
	"os/exec"
	"testing"
	"time"

	"hermes-desktop/platform/proc"
)

// helperEnv makes the test binary, re-run as a child, a sleeping helper
// (TestMain) instead of running the tests: a real process with nothing of
// its own to clean up, which only a kill ends early.
const helperEnv = "HERMES_PROC_TEST_HELPER"

// helperLife bounds a helper that nobody kills: long past any test, short
// enough that a helper a crashed test run left behind goes on its own.
const helperLife = 2 * time.Minute

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "sleep" {
		time.Sleep(helperLife)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// helper is one sleeping child of the test and the only waiter of it.
type helper struct {
	cmd  *exec.Cmd
	done chan struct{}
}

// startHelpers starts n sleeping children; cleanup kills those still alive.
func startHelpers(t *testing.T, n int) []*helper {
	t.Helper()
	hs := make([]*helper, n)
	for k := range hs {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), helperEnv+"=sleep")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		h := &helper{cmd: cmd, done: make(chan struct{})}
		go func() { _ = cmd.Wait(); close(h.done) }()
		t.Cleanup(func() {
			_ = cmd.Process.Kill() // ours; a no-op once it has exited
			<-h.done
		})
		hs[k] = h
	}
	return hs
}

// gone reports whether h exited within d.
func (h *helper) gone(d time.Duration) bool {
	select {
	case <-h.done:
		return true
	case <-time.After(d):
		return false
	}
}

// newTestJob is a kill-on-close job holding hs; cleanup closes it.
func newTestJob(t *testing.T, hs ...*helper) *Job {
	t.Helper()
	job, err := NewKillOnClose(false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(job.Close)
	for _, h := range hs {
		if err := job.Assign(h.cmd.Process.Pid); err != nil {
			t.Fatal(err)
		}
	}
	return job
}

// memberWait is how long a killed member may take to be seen gone: Windows
// (and Wine) end a terminated process in about a millisecond.
const memberWait = 5 * time.Second

// KillMembers must end every member and nothing else. It checks each
// listed PID's membership through a handle first, and IsProcessInJob
// wants PROCESS_QUERY_INFORMATION on Wine and older Windows: asked with
// PROCESS_QUERY_LIMITED_INFORMATION alone, every check failed there and
// KillMembers killed nothing.
func TestJobKillMembers(t *testing.T) {
	hs := startHelpers(t, 3)
	members, outsider := hs[:2], hs[2]
	job := newTestJob(t, members...)
	if err := job.KillMembers(); err != nil {
		t.Errorf("KillMembers: %v", err)
	}
	for _, h := range members {
		if !h.gone(memberWait) {
			t.Errorf("member %d: got alive %v after KillMembers, want gone", h.cmd.Process.Pid, memberWait)
		}
	}
	if outsider.gone(200 * time.Millisecond) {
		t.Errorf("outsider %d: got gone, want alive (it is in no job of ours)", outsider.cmd.Process.Pid)
	}
	if alive, err := proc.Alive(mustLookup(t, outsider.cmd.Process.Pid)); err != nil || !alive {
		t.Errorf("outsider %d: got alive %v (%v), want true", outsider.cmd.Process.Pid, alive, err)
	}
}

// KillMembers leaves the job usable: a process assigned afterwards is
// killed by the next call.
func TestJobKillMembersTwice(t *testing.T) {
	hs := startHelpers(t, 2)
	job := newTestJob(t, hs[0])
	if err := job.KillMembers(); err != nil {
		t.Errorf("first KillMembers: %v", err)
	}
	if !hs[0].gone(memberWait) {
		t.Fatalf("member %d: got alive after KillMembers, want gone", hs[0].cmd.Process.Pid)
	}
	if err := job.Assign(hs[1].cmd.Process.Pid); err != nil {
		t.Fatal(err)
	}
	if err := job.KillMembers(); err != nil {
		t.Errorf("second KillMembers: %v", err)
	}
	if !hs[1].gone(memberWait) {
		t.Errorf("member %d: got alive after the second KillMembers, want gone", hs[1].cmd.Process.Pid)
	}
}

// Closing the last handle on a kill-on-close job ends its members, however
// the holder lets go of it: what binds a shim's tree to the shim.
func TestJobKillOnClose(t *testing.T) {
	hs := startHelpers(t, 3)
	members, outsider := hs[:2], hs[2]
	job := newTestJob(t, members...)
	for _, h := range members {
		if h.gone(100 * time.Millisecond) {
			t.Fatalf("member %d: got gone before the job closed, want alive", h.cmd.Process.Pid)
		}
	}
	job.Close()
	for _, h := range members {
		if !h.gone(memberWait) {
			t.Errorf("member %d: got alive %v after the job closed, want gone", h.cmd.Process.Pid, memberWait)
		}
	}
	if outsider.gone(200 * time.Millisecond) {
		t.Errorf("outsider %d: got gone, want alive", outsider.cmd.Process.Pid)
	}
}

// Terminate ends every member at once, and only members.
func TestJobTerminate(t *testing.T) {
	hs := startHelpers(t, 3)
	members, outsider := hs[:2], hs[2]
	job := newTestJob(t, members...)
	if err := job.Terminate(); err != nil {
		t.Fatalf("Terminate: %v", err)
	}
	for _, h := range members {
		if !h.gone(memberWait) {
			t.Errorf("member %d: got alive %v after Terminate, want gone", h.cmd.Process.Pid, memberWait)
			continue
		}
		if code := h.cmd.ProcessState.ExitCode(); code != 1 {
			t.Errorf("member %d: got exit code %d, want 1 (Terminate's)", h.cmd.Process.Pid, code)
		}
	}
	if outsider.gone(200 * time.Millisecond) {
		t.Errorf("outsider %d: got gone, want alive", outsider.cmd.Process.Pid)
	}
}

func mustLookup(t *testing.T, pid int) proc.Identity {
	t.Helper()
	id, err := proc.Lookup(pid)
	if err != nil {
		t.Fatal(err)
	}
	return id
}
