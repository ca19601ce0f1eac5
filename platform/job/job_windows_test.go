package job

import (
	"os"
	"testing"
	"time"

	"hermes-desktop/internal/sleeper"
	"hermes-desktop/platform/proc"
)

func TestMain(m *testing.M) {
	sleeper.Main()
	os.Exit(m.Run())
}

// newTestJob is a kill-on-close job holding hs; cleanup closes it.
func newTestJob(t *testing.T, hs ...*sleeper.Child) *Job {
	t.Helper()
	job, err := NewKillOnClose(false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(job.Close)
	for _, h := range hs {
		if err := job.Assign(h.PID()); err != nil {
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
	hs := sleeper.Start(t, 3)
	members, outsider := hs[:2], hs[2]
	job := newTestJob(t, members...)
	if err := job.KillMembers(); err != nil {
		t.Errorf("KillMembers: %v", err)
	}
	for _, h := range members {
		if !h.Gone(memberWait) {
			t.Errorf("member %d: got alive %v after KillMembers, want gone", h.PID(), memberWait)
		}
	}
	if outsider.Gone(200 * time.Millisecond) {
		t.Errorf("outsider %d: got gone, want alive (it is in no job of ours)", outsider.PID())
	}
	if alive, err := proc.Alive(mustLookup(t, outsider.PID())); err != nil || !alive {
		t.Errorf("outsider %d: got alive %v (%v), want true", outsider.PID(), alive, err)
	}
}

// KillMembers leaves the job usable: a process assigned afterwards is
// killed by the next call.
func TestJobKillMembersTwice(t *testing.T) {
	hs := sleeper.Start(t, 2)
	job := newTestJob(t, hs[0])
	if err := job.KillMembers(); err != nil {
		t.Errorf("first KillMembers: %v", err)
	}
	if !hs[0].Gone(memberWait) {
		t.Fatalf("member %d: got alive after KillMembers, want gone", hs[0].PID())
	}
	if err := job.Assign(hs[1].PID()); err != nil {
		t.Fatal(err)
	}
	if err := job.KillMembers(); err != nil {
		t.Errorf("second KillMembers: %v", err)
	}
	if !hs[1].Gone(memberWait) {
		t.Errorf("member %d: got alive after the second KillMembers, want gone", hs[1].PID())
	}
}

// Closing the last handle on a kill-on-close job ends its members, however
// the holder lets go of it: what binds a shim's tree to the shim.
func TestJobKillOnClose(t *testing.T) {
	hs := sleeper.Start(t, 3)
	members, outsider := hs[:2], hs[2]
	job := newTestJob(t, members...)
	for _, h := range members {
		if h.Gone(100 * time.Millisecond) {
			t.Fatalf("member %d: got gone before the job closed, want alive", h.PID())
		}
	}
	job.Close()
	for _, h := range members {
		if !h.Gone(memberWait) {
			t.Errorf("member %d: got alive %v after the job closed, want gone", h.PID(), memberWait)
		}
	}
	if outsider.Gone(200 * time.Millisecond) {
		t.Errorf("outsider %d: got gone, want alive", outsider.PID())
	}
}

// Terminate ends every member at once, and only members.
func TestJobTerminate(t *testing.T) {
	hs := sleeper.Start(t, 3)
	members, outsider := hs[:2], hs[2]
	job := newTestJob(t, members...)
	if err := job.Terminate(); err != nil {
		t.Fatalf("Terminate: %v", err)
	}
	for _, h := range members {
		if !h.Gone(memberWait) {
			t.Errorf("member %d: got alive %v after Terminate, want gone", h.PID(), memberWait)
			continue
		}
		if code := h.ExitCode(); code != 1 {
			t.Errorf("member %d: got exit code %d, want 1 (Terminate's)", h.PID(), code)
		}
	}
	if outsider.Gone(200 * time.Millisecond) {
		t.Errorf("outsider %d: got gone, want alive", outsider.PID())
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
