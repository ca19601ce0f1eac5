package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"hermes-desktop/backend/model"
	"hermes-desktop/backend/reap"
	"hermes-desktop/internal/testbin"
	"hermes-desktop/internal/waitfor"
	"hermes-desktop/lockfile"
	"hermes-desktop/platform/cgroup"
	"hermes-desktop/platform/proc"
)

// The kernel holds each backend's tree: a whole-app crash (launcher and
// shim SIGKILLed together) while the backend keeps leaving self-daemonized,
// environment-less grandchildren leaves nothing after the next boot, round
// after round; and nothing outside our own cgroups is ever signalled or
// removed.

// daemonizing is a backend that leaves a double-forked, setsid'd daemon
// with an empty environment every 250 ms, plus a setsid'd child; label
// marks the daemons' command lines, the only thing that still names them.
func daemonizing(label string) string {
	return "{bin} serve --host 127.0.0.1 --port 0 --spawn-setsid-children 1 --daemonize-every 250ms --daemon-label " + label
}

// cgroupDecoys are what the reaps must leave alone, in the test's cgroup:
// a cgroup not named like ours, a backend cgroup whose record names a live
// owner (this test, holding its owner lock), and a backend cgroup no
// record names; each with a process in it.
type cgroupDecoys struct {
	cgroups map[string]*cgroup.Cgroup
	procs   map[string]proc.Identity
	records *lockfile.Records
	nonce   string // of the live owner's record
}

// dropRecord removes the live owner's record, before a stop that checks
// that no record is left.
func (d *cgroupDecoys) dropRecord(t *testing.T) { must(t, d.records.Remove(d.nonce)) }

func startCgroupDecoys(t *testing.T, parent *cgroup.Cgroup, stateDir string) *cgroupDecoys {
	t.Helper()
	d := &cgroupDecoys{cgroups: map[string]*cgroup.Cgroup{}, procs: map[string]proc.Identity{}}
	liveNonce, _ := lockfile.NewNonce()
	strayNonce, _ := lockfile.NewNonce()
	names := map[string]string{
		"foreign cgroup":            "decoy-not-ours",
		"backend with a live owner": lockfile.CgroupName(liveNonce),
		"backend with no record":    lockfile.CgroupName(strayNonce),
	}
	for what, name := range names {
		cg, err := cgroup.Create(path.Join(parent.Path(), name))
		must(t, err)
		cmd := exec.Command("sleep", "100000")
		must(t, testbin.StartIn(cmd, cg))
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait(); _ = cg.Remove() }) // ours: started just above
		id, err := proc.Lookup(cmd.Process.Pid)
		must(t, err)
		d.cgroups[what], d.procs[what] = cg, id
	}
	ownerNonce, _ := lockfile.NewNonce()
	lock, err := lockfile.AcquireOwner(stateDir, ownerNonce)
	must(t, err)
	t.Cleanup(func() { _ = lock.Release() })
	self, _ := proc.Self()
	id := d.procs["backend with a live owner"]
	id.BootID = proc.BootID()
	rs, err := lockfile.OpenRecords(stateDir)
	must(t, err)
	must(t, rs.Write(&lockfile.Record{Schema: lockfile.RecordSchema, Name: "decoy", Nonce: liveNonce, BootID: proc.BootID(),
		Backend: &id, Argv: []string{"sleep", "100000"}, Owner: lockfile.Owner{Nonce: ownerNonce, PID: self.PID, Start: self.Start},
		Created: time.Now().UTC(), Cgroup: d.cgroups["backend with a live owner"].Path()}))
	d.records, d.nonce = rs, liveNonce
	return d
}

// intact reports every decoy whose process or cgroup is gone.
func (d *cgroupDecoys) intact(t *testing.T) bool {
	ok := true
	for what, id := range d.procs {
		if running, _ := proc.Running(id); !running {
			t.Errorf("decoy %q (pid %d) was killed", what, id.PID)
			ok = false
		}
		if _, err := cgroup.Open(d.cgroups[what].Path()); err != nil {
			t.Errorf("decoy cgroup %q was removed: %v", what, err)
			ok = false
		}
	}
	return ok
}

// labelled lists the processes whose command line carries label: the
// daemons, found without their environment.
func labelled(label string) []proc.Identity {
	pids, _ := proc.PIDs()
	var out []proc.Identity
	for _, pid := range pids {
		if argv, err := proc.Cmdline(pid); err == nil && slices.Contains(argv, label) && len(argv) > 1 && argv[1] == "serve-child" {
			if id, err := proc.Lookup(pid); err == nil {
				out = append(out, id)
			}
		}
	}
	return out
}

func crashRounds(t *testing.T) int {
	if n, err := strconv.Atoi(os.Getenv("HERMES_DESKTOP_CRASH_ROUNDS")); err == nil && n > 0 {
		return n
	}
	return 20
}

func TestWholeAppCrashLeavesNoDaemonAfterTheNextBoot(t *testing.T) {
	label := "crash-" + testbin.NewTag()
	l := testbin.StartLauncher(t, "--grace", "1s", "--backend-cmd", daemonizing(label))
	if l.Cgroup == nil {
		t.Skip("cgroup v2 not writable here: the kernel cannot hold the tree, and the process tree cannot hold an env-less daemon")
	}
	l.WaitReady(1, readyWait) // the state dir exists
	decoys := startCgroupDecoys(t, l.Cgroup, l.StateDir)
	var seen []proc.Identity
	rounds := crashRounds(t)
	for r := 1; r <= rounds && !t.Failed(); r++ {
		l.WaitReady(1, readyWait)
		b := status(t, l).Backends[0]
		if b.Containment != model.ContainmentCgroup || !strings.HasPrefix(b.Cgroup, l.Cgroup.Path()+"/") {
			t.Fatalf("round %d: containment %q in %q (%s), want a cgroup under %s", r, b.Containment, b.Cgroup, b.ContainmentReason, l.Cgroup.Path())
		}
		waitLabelled(t, label, seen, 2)
		time.Sleep(time.Duration(r%4) * 100 * time.Millisecond) // crash at different moments of the 250 ms cycle
		now := labelled(label)
		killLauncherAndShim(t, l, b.ShimPID)
		if _, err := l.WaitExit(10 * time.Second); err != nil {
			t.Fatal(err)
		}
		stranded := stillRunning(now)
		if len(stranded) == 0 {
			t.Fatalf("round %d: no daemon outlived the crash: the test proves nothing", r)
		}
		seen = append(seen, now...)
		l = l.StartAnother("--grace", "1s", "--backend-cmd", daemonizing(label))
		l.WaitReady(1, readyWait)
		t.Logf("round %d: %d daemons outlived the crash of launcher and shim; the next boot: %s", r, len(stranded), cgroupDetail(status(t, l).BootReap, b.Cgroup))
		if left := stillRunning(seen); len(left) > 0 {
			t.Errorf("round %d: %d of %d daemons of earlier rounds alive after the boot: %v", r, len(left), len(seen), left)
		}
		checkCgroupReaped(t, r, status(t, l).BootReap, b.Cgroup)
		if !decoys.intact(t) {
			t.Fatalf("round %d: a decoy was touched", r)
		}
	}
	decoys.dropRecord(t)
	stopAndCheck(t, l)
	if left := stillRunning(labelled(label)); len(left) > 0 {
		t.Errorf("daemons left after the last stop: %v", left)
	}
	decoys.intact(t)
}

// waitLabelled waits until n daemons not seen before are running.
func waitLabelled(t *testing.T, label string, seen []proc.Identity, n int) {
	t.Helper()
	fresh := 0
	if !waitfor.Try(10*time.Second, func() bool {
		fresh = 0
		for _, id := range labelled(label) {
			if !slices.Contains(seen, id) {
				fresh++
			}
		}
		return fresh >= n
	}) {
		t.Fatalf("daemons: %d new, want %d", fresh, n)
	}
}

func stillRunning(ids []proc.Identity) []proc.Identity {
	var out []proc.Identity
	for _, id := range ids {
		if running, _ := proc.Running(id); running {
			out = append(out, id)
		}
	}
	return out
}

func cgroupDetail(r *reap.Report, cgroup string) string {
	if r != nil {
		for _, d := range r.Cgroups {
			if d.Cgroup == cgroup {
				return fmt.Sprintf("%s/%s: %s", d.Action, d.Reason, d.Detail)
			}
		}
	}
	return "no decision"
}

// checkCgroupReaped: the boot reap decided on the crashed backend's cgroup,
// reaped it for its dead owner, and it is gone.
func checkCgroupReaped(t *testing.T, round int, r *reap.Report, group string) {
	t.Helper()
	if r == nil {
		t.Fatalf("round %d: no boot reap in the status", round)
	}
	for _, d := range r.Cgroups {
		if d.Cgroup != group {
			continue
		}
		if d.Action != reap.ActionReaped || d.Reason != reap.ReasonOwnerDead {
			t.Errorf("round %d: cgroup %s: got %s/%s (%s), want reaped/owner-dead", round, group, d.Action, d.Reason, d.Detail)
		}
		if _, err := cgroup.Open(group); err == nil {
			t.Errorf("round %d: cgroup %s still there after the reap", round, group)
		}
		return
	}
	t.Errorf("round %d: no decision on cgroup %s in %+v", round, group, r.Cgroups)
}

// The boot reap's decisions on the decoys: spared, each with its reason.
func TestBootReapSparesCgroupsItCannotProveOurs(t *testing.T) {
	l := testbin.StartLauncher(t, "--no-boot-reap") // a launcher only for its state dir and cgroup
	if l.Cgroup == nil {
		t.Skip("cgroup v2 not writable here")
	}
	l.WaitReady(1, readyWait)
	decoys := startCgroupDecoys(t, l.Cgroup, l.StateDir)
	out, errOut, code := l.CLI("reap", "--json", "--dry-run")
	if code != 0 {
		t.Fatalf("reap: exit %d: %s", code, errOut)
	}
	r := decodeReport(t, out)
	want := map[string]string{
		decoys.cgroups["backend with a live owner"].Path(): reap.ReasonOwned,
		decoys.cgroups["backend with no record"].Path():    reap.ReasonFailClosed,
	}
	own := status(t, l).Backends[0].Cgroup
	want[own] = reap.ReasonOwned // the running launcher's own backend
	for _, d := range r.Cgroups {
		if d.Cgroup == decoys.cgroups["foreign cgroup"].Path() {
			t.Errorf("a cgroup not named like ours was judged: %+v", d)
		}
		if reason, ok := want[d.Cgroup]; ok {
			if d.Action != reap.ActionSpared || d.Reason != reason {
				t.Errorf("cgroup %s: got %s/%s (%s), want spared/%s", d.Cgroup, d.Action, d.Reason, d.Detail, reason)
			}
			delete(want, d.Cgroup)
		}
	}
	for p := range want {
		t.Errorf("no decision on cgroup %s", p)
	}
	decoys.intact(t)
	decoys.dropRecord(t)
	stopAndCheck(t, l)
	decoys.intact(t)
}

func decodeReport(t *testing.T, out string) *reap.Report {
	t.Helper()
	var r reap.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("reap output: %v: %q", err, out)
	}
	return &r
}
