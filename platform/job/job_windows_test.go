package job

import (
	"os"
	"testing"
	"time"

	"golang.org/x/sys/windows"

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

// dupHandle is a second handle on the job, as a handoff's successor
// inherits one.
func dupHandle(t *testing.T, h uintptr) uintptr {
	t.Helper()
	self := windows.CurrentProcess()
	var d windows.Handle
	if err := windows.DuplicateHandle(self, windows.Handle(h), self, &d, 0, true, windows.DUPLICATE_SAME_ACCESS); err != nil {
		t.Fatal(err)
	}
	return uintptr(d)
}

// A job held by two handles (a launcher's and its successor's) outlives
// either one's close, and ends its members when the last closes: what
// keeps the backends through an adopt handoff, and still kills them when
// both launchers are gone.
func TestJobHeldByTwoEndsWithTheLast(t *testing.T) {
	hs := sleeper.Start(t, 2)
	first := newTestJob(t, hs...)
	second, err := Inherit(dupHandle(t, first.Handle()))
	if err != nil {
		t.Fatalf("Inherit: %v", err)
	}
	t.Cleanup(second.Close)
	first.Close()
	for _, h := range hs {
		if h.Gone(200 * time.Millisecond) {
			t.Fatalf("member %d: got gone when the first of two handles closed, want alive", h.PID())
		}
		if in, err := second.Holds(h.PID()); err != nil || !in {
			t.Errorf("Holds(%d) through the second handle: got %v, %v; want true", h.PID(), in, err)
		}
	}
	second.Close()
	for _, h := range hs {
		if !h.Gone(memberWait) {
			t.Errorf("member %d: got alive %v after the last handle closed, want gone", h.PID(), memberWait)
		}
	}
}

// Inherit takes a job's handle and refuses a handle of another kind.
func TestInheritRefusesWhatIsNoJob(t *testing.T) {
	f, err := os.Create(t.TempDir() + `\not-a-job`)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := Inherit(f.Fd()); err == nil {
		t.Error("a file's handle was taken as a job")
	}
	j := newTestJob(t)
	got, err := Inherit(dupHandle(t, j.Handle()))
	if err != nil {
		t.Fatalf("Inherit: %v", err)
	}
	defer got.Close()
	hs := sleeper.Start(t, 1)
	if in, err := got.Holds(hs[0].PID()); err != nil || in {
		t.Errorf("Holds of a process outside: got %v, %v; want false", in, err)
	}
}
