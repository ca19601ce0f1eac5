package e2e

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"hermes-desktop/backend/model"
	"hermes-desktop/internal/testbin"
	"hermes-desktop/internal/waitfor"
	"hermes-desktop/lockfile"
	"hermes-desktop/platform/proc"
)

// The chaos suite: round after round, a launcher with random faults meets a
// random blow (SIGKILL of the launcher, the shim or the backend, SIGTERM,
// stop, restart, a second instance, a corrupt record, launcher and shim
// SIGKILLed together while the backend leaves environment-less daemons),
// then the app boots again and the promise is checked:
//
//   - after the next boot's reap, no process of any earlier round is alive
//     (every PID and start marker ever seen is tracked: by the test's tag,
//     and the daemons, which carry no environment, by their command line);
//   - the decoys started at the beginning are all still alive: a fixed-port
//     serve, a 0.0.0.0 serve, an SSH-lock-owned serve, a serve owned by a
//     second live instance in the same state dir, and an unrelated process
//     whose PID a stale record names; and, where cgroup v2 is writable, a
//     cgroup not named like ours, a backend cgroup whose record names a
//     live owner and one no record names, each with its process;
//   - after a clean boot no record refers to a dead process;
//   - no .corrupt file was ever deleted.
//
// HERMES_DESKTOP_CHAOS_ROUNDS sets the number of rounds (default 20; `make
// chaos ROUNDS=500`), HERMES_DESKTOP_CHAOS_SEED the random seed.

type chaosAction string

const (
	killLauncher  chaosAction = "SIGKILL launcher"
	killShim      chaosAction = "SIGKILL shim"
	killBackend   chaosAction = "SIGKILL backend"
	termLauncher  chaosAction = "SIGTERM launcher"
	stopCommand   chaosAction = "stop"
	restartCmd    chaosAction = "restart"
	secondLaunch  chaosAction = "second instance"
	corruptRecord chaosAction = "corrupt a record"
	// crashApp kills launcher and shim together while the backend leaves a
	// double-forked, environment-less daemon every 250 ms: only the
	// backend's cgroup still holds those after the blow.
	crashApp chaosAction = "SIGKILL launcher and shim, daemonizing backend"
)

var chaosActions = []chaosAction{killLauncher, killShim, killBackend, termLauncher, stopCommand, restartCmd, secondLaunch, corruptRecord, crashApp}

// invariant counts how often one promise held.
type invariant struct {
	name           string
	passed, failed int
}

func (inv *invariant) check(t *testing.T, ok bool, format string, a ...any) {
	if ok {
		inv.passed++
		return
	}
	inv.failed++
	t.Errorf("%s: "+format, append([]any{inv.name}, a...)...)
}

// chaos is the state of one chaos run.
type chaos struct {
	t        *testing.T
	rng      *rand.Rand
	base     *testbin.Launcher // state dir, HERMES_HOME, binary, tag
	mu       sync.Mutex        // guards seen
	seen     map[proc.Identity]int
	decoys   map[string]proc.Identity
	corrupt  map[string]bool // .corrupt files that must stay
	ownLock  *lockfile.Lock
	ownOwner lockfile.Owner
	// label marks the daemons' command lines: they carry no tag.
	label string
	// cgroupDecoys are the cgroups next to ours it must not touch (nil
	// where cgroup v2 is not writable).
	cgroupDecoys *cgroupDecoys
}

func TestChaos(t *testing.T) {
	rounds := 20
	if v, err := strconv.Atoi(os.Getenv("HERMES_DESKTOP_CHAOS_ROUNDS")); err == nil && v > 0 {
		rounds = v
	}
	seed := uint64(time.Now().UnixNano())
	if v, err := strconv.ParseUint(os.Getenv("HERMES_DESKTOP_CHAOS_SEED"), 10, 64); err == nil {
		seed = v
	}
	t.Logf("chaos: %d rounds, seed %d (HERMES_DESKTOP_CHAOS_SEED=%d to replay)", rounds, seed, seed)
	home := t.TempDir()
	c := &chaos{
		t:       t,
		rng:     rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		base:    testbin.Base(t, filepath.Join(home, "state"), filepath.Join(home, "hermes"), testbin.Tag(t)),
		seen:    map[proc.Identity]int{},
		decoys:  map[string]proc.Identity{},
		corrupt: map[string]bool{},
		label:   "chaos-" + testbin.NewTag(),
	}
	must(t, lockfile.EnsureDir(c.base.StateDir))
	must(t, os.MkdirAll(c.base.HermesHome, 0o700))
	c.startDecoys()
	defer c.stopDecoys()
	if c.base.Cgroup != nil {
		c.cgroupDecoys = startCgroupDecoys(t, c.base.Cgroup, c.base.StateDir)
		defer c.cgroupDecoys.dropRecord(t)
	}

	survivors := &invariant{name: "no process of an earlier round alive"}
	decoys := &invariant{name: "decoys alive"}
	records := &invariant{name: "no record of a dead process"}
	corrupts := &invariant{name: "no .corrupt file deleted"}
	for r := 1; r <= rounds && !t.Failed(); r++ {
		action := chaosActions[c.rng.IntN(len(chaosActions))]
		faults := c.randomFaults()
		t.Logf("round %d: %s, backend %q", r, action, faults)
		faulty := c.round(r, action, faults)
		boot := c.boot(r)
		survivors.check(t, c.earlierAllGone(r), "round %d (%s)", r, action)
		decoys.check(t, c.decoysAlive(faulty, boot), "round %d (%s)", r, action)
		records.check(t, c.recordsLive(), "round %d (%s)", r, action)
		corrupts.check(t, c.corruptKept(), "round %d (%s)", r, action)
		c.stop(boot)
	}
	for _, inv := range []*invariant{survivors, decoys, records, corrupts} {
		t.Logf("%s: %d passed, %d failed", inv.name, inv.passed, inv.failed)
	}
}

// randomFaults picks the built-in backend's faults for a round.
func (c *chaos) randomFaults() string {
	f := "{bin} serve --host 127.0.0.1 --port 0"
	if c.rng.IntN(3) == 0 {
		f += fmt.Sprintf(" --start-delay %dms", c.rng.IntN(800))
	}
	if c.rng.IntN(4) == 0 {
		f += fmt.Sprintf(" --crash-after %dms", 300+c.rng.IntN(1500))
	}
	if c.rng.IntN(3) == 0 {
		f += " --ignore-sigterm"
	}
	f += fmt.Sprintf(" --spawn-children %d --spawn-setsid-children %d", c.rng.IntN(3), c.rng.IntN(3))
	return f
}

// round starts a faulty launcher and hits it; it returns that launcher.
func (c *chaos) round(r int, action chaosAction, faults string) *testbin.Launcher {
	if action == crashApp {
		faults += " --daemonize-every 250ms --daemon-label " + c.label
	}
	l := c.launcher("--grace", "500ms", "--backend-cmd", faults)
	stopTrack := c.track(r)
	defer stopTrack()
	time.Sleep(time.Duration(c.rng.IntN(1500)) * time.Millisecond)
	st, _ := statusOf(c.t, l)
	var b model.BackendStatus
	if len(st.Backends) > 0 {
		b = st.Backends[0]
	}
	switch action {
	case killLauncher:
		_ = l.Signal(syscall.SIGKILL)
	case crashApp:
		if b.ShimPID > 0 && slicesContains(testbin.Tagged(c.base.Tag), b.ShimPID) { // ours, by tag
			killLauncherAndShim(c.t, l, b.ShimPID)
		} else {
			_ = l.Signal(syscall.SIGKILL) // no shim yet: the launcher alone
		}
	case termLauncher:
		_ = l.Signal(syscall.SIGTERM)
	case killShim, killBackend:
		pid := b.ShimPID
		if action == killBackend {
			pid = b.PID
		}
		if pid > 0 && slicesContains(testbin.Tagged(c.base.Tag), pid) { // ours, by tag
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(time.Duration(c.rng.IntN(800)) * time.Millisecond)
	case stopCommand:
		l.CLI("stop")
	case restartCmd:
		l.CLI("restart")
		time.Sleep(time.Duration(c.rng.IntN(800)) * time.Millisecond)
	case secondLaunch:
		second := c.launcher()
		if code, err := second.WaitExit(15 * time.Second); err != nil || code != 0 {
			c.t.Errorf("round %d: the second instance did not exit 0 (%d, %v)", r, code, err)
		}
	case corruptRecord:
		nonce, _ := lockfile.NewNonce()
		path := filepath.Join(c.base.StateDir, "records", nonce+".json")
		must(c.t, os.WriteFile(path, []byte(`{"schema":1,"nonce":"`+nonce+`","backend":{"pid":"oops"}}`), 0o600))
		c.corrupt[path+".corrupt"] = true
	}
	// Whatever survived the blow is stopped cleanly before the next boot.
	l.CLI("stop", "--timeout", "30s")
	if _, err := l.WaitExit(20 * time.Second); err != nil {
		c.t.Errorf("round %d: launcher still running after stop: %v", r, err)
		_ = l.Signal(syscall.SIGKILL)
	}
	return l
}

// boot starts a clean launcher (the next boot) and waits for it to be up.
func (c *chaos) boot(r int) *testbin.Launcher {
	l := c.launcher("--grace", "500ms")
	l.WaitReady(1, readyWait)
	return l
}

func (c *chaos) stop(l *testbin.Launcher) {
	l.CLI("stop", "--timeout", "30s")
	if _, err := l.WaitExit(20 * time.Second); err != nil {
		c.t.Errorf("the boot's launcher did not stop: %v", err)
	}
}

func (c *chaos) launcher(args ...string) *testbin.Launcher {
	l := c.base.StartAnother(args...)
	return l
}

// track records the identity of every tagged process while a round runs.
func (c *chaos) track(r int) func() {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			for _, pid := range testbin.Tagged(c.base.Tag) {
				if id, err := proc.Lookup(pid); err == nil {
					c.mu.Lock()
					if _, ok := c.seen[id]; !ok {
						c.seen[id] = r
					}
					c.mu.Unlock()
				}
			}
			for _, id := range labelled(c.label) { // the daemons: no tag, no environment
				c.mu.Lock()
				if _, ok := c.seen[id]; !ok {
					c.seen[id] = r
				}
				c.mu.Unlock()
			}
			select {
			case <-done:
				return
			case <-time.After(15 * time.Millisecond):
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

// earlierAllGone: every process seen in this round or earlier (the boot
// was not tracked) is gone, once a dying tree's grace period has passed.
func (c *chaos) earlierAllGone(r int) bool {
	var alive []string
	if waitfor.Try(5*time.Second, func() bool {
		alive = alive[:0]
		c.mu.Lock()
		defer c.mu.Unlock()
		for id := range c.seen {
			if running, _ := proc.Running(id); running {
				argv, _ := proc.Cmdline(id.PID)
				alive = append(alive, fmt.Sprintf("%d %s", id.PID, strings.Join(argv, " ")))
			}
		}
		return len(alive) == 0
	}) {
		return true
	}
	c.t.Logf("alive after round %d's boot: %v", r, alive)
	return false
}

// startDecoys starts what the app must never touch. They are orphans (the
// shape the reaper looks at) but carry no test tag: they are ours to stop
// at the end, by identity.
func (c *chaos) startDecoys() {
	env := testbin.NewEnv("chaos-decoy", c.base.HermesHome)
	start := func(name string, argv ...string) proc.Identity {
		cmd := exec.Command("sh", append([]string{"-c", `"$@" >/dev/null 2>&1 </dev/null & echo $!`, "sh"}, argv...)...)
		cmd.Env = env
		out, err := cmd.Output()
		must(c.t, err)
		pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
		must(c.t, err)
		id, err := proc.Lookup(pid)
		must(c.t, err)
		c.decoys[name] = id
		return id
	}
	bin := c.base.Bin
	start("fixed-port serve", bin, "serve", "--host", "127.0.0.1", "--port", strconv.Itoa(freePort(c.t)))
	start("0.0.0.0 serve", bin, "serve", "--host", "0.0.0.0", "--port", "0")
	ssh := start("ssh-lock serve", bin, "serve", "--host", "127.0.0.1", "--port", "0")
	writeSSHLock(c.t, c.base.HermesHome, "abcdefabcdefabcdefabcdefabcdef00", ssh.PID, true)
	// A second live instance in the same state dir: we hold its owner lock.
	nonce, _ := lockfile.NewNonce()
	var err error
	c.ownLock, err = lockfile.AcquireOwner(c.base.StateDir, nonce)
	must(c.t, err)
	self, _ := proc.Self()
	c.ownOwner = lockfile.Owner{Nonce: nonce, PID: self.PID, Start: self.Start}
	ownedNonce, _ := lockfile.NewNonce()
	owned := start("owned by another instance", append([]string{"env", "HERMES_PARENT_NONCE=" + ownedNonce}, bin, "serve", "--host", "127.0.0.1", "--port", "0")...)
	c.writeRecord(owned, ownedNonce, c.ownOwner)
	start("unrelated, PID in a stale record", "sleep", "100000")
	c.staleRecord()
}

// staleRecord (re)writes a record whose PID now belongs to the unrelated
// decoy: a boot drops it without signalling the decoy.
func (c *chaos) staleRecord() {
	id := c.decoys["unrelated, PID in a stale record"]
	nonce, _ := lockfile.NewNonce()
	c.writeRecord(proc.Identity{PID: id.PID, Start: "linux:1"}, nonce, deadOwner(c.t))
}

func (c *chaos) writeRecord(id proc.Identity, nonce string, owner lockfile.Owner) {
	rs, err := lockfile.OpenRecords(c.base.StateDir)
	must(c.t, err)
	id.BootID = proc.BootID()
	must(c.t, rs.Write(&lockfile.Record{Schema: lockfile.RecordSchema, Name: "decoy", Nonce: nonce, BootID: proc.BootID(),
		Backend: &id, Argv: []string{"hermes", "serve"}, Owner: owner, Created: time.Now().UTC()}))
}

func (c *chaos) decoysAlive(logs ...*testbin.Launcher) bool {
	ok := true
	for name, id := range c.decoys {
		if running, _ := proc.Running(id); !running {
			c.t.Logf("decoy %q (pid %d) is gone", name, id.PID)
			ok = false
			// What the launchers of this round said about it.
			for _, l := range logs {
				for _, line := range strings.Split(l.Stderr.String()+"\n"+l.Stdout.String(), "\n") {
					if strings.Contains(line, "pid="+strconv.Itoa(id.PID)+" ") || strings.Contains(line, strconv.Itoa(id.PID)) {
						c.t.Logf("decoy %d in the launcher's log: %s", id.PID, line)
					}
				}
			}
		}
	}
	c.staleRecord() // the boot dropped it; arm the next round
	if c.cgroupDecoys != nil && !c.cgroupDecoys.intact(c.t) {
		ok = false
	}
	return ok
}

// recordsLive: every record left after a clean boot names a live process.
func (c *chaos) recordsLive() bool {
	rs, err := lockfile.OpenRecords(c.base.StateDir)
	must(c.t, err)
	recs, _, err := rs.Peek()
	must(c.t, err)
	ok := true
	for _, r := range recs {
		if r.Name == "decoy" && r.Backend.Start == "linux:1" {
			continue // the stale-record decoy, armed again just now
		}
		id := r.Leader()
		id.BootID = r.BootID
		if running, _ := proc.Running(id); !running {
			data, _ := json.Marshal(r)
			c.t.Logf("record of a dead process: %s", data)
			ok = false
		}
	}
	return ok
}

func (c *chaos) corruptKept() bool {
	ok := true
	for path := range c.corrupt {
		if _, err := os.Stat(path); err != nil {
			c.t.Logf("a set-aside record is gone: %s (%v)", path, err)
			ok = false
		}
	}
	return ok
}

func (c *chaos) stopDecoys() {
	for _, id := range c.decoys {
		_ = proc.Signal(id, syscall.SIGKILL) // ours: started by startDecoys
	}
	_ = c.ownLock.Release()
}

func slicesContains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
