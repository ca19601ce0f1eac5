package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"hermes-desktop/backend/reap"
	"hermes-desktop/internal/testbin"
	"hermes-desktop/internal/waitfor"
	"hermes-desktop/lockfile"
	"hermes-desktop/platform/proc"
)

// scene is a real set of processes and files for the reaper to judge.
type scene struct {
	t        *testing.T
	bin      string
	tag      string
	stateDir string
	home     string // HERMES_HOME
	// userHome is the scene's $HOME, apart from HERMES_HOME, as a user with
	// a custom HERMES_HOME has it; Hermes Desktop writes its SSH locks under
	// $HOME/.hermes whatever HERMES_HOME is.
	userHome string
	records  *lockfile.Records
	// pids are the processes the scene started: every reap it runs looks
	// at these only (--only), so it never signals anyone else's process,
	// whatever else runs on the machine.
	pids []int
	// orphans are the scene's orphans: the test's cleanup kills any that
	// are still there (each by identity, so never a reused PID).
	orphans []proc.Identity
}

// only is the scene's reap scope, for --only.
func (s *scene) only() string {
	var out []string
	for _, pid := range s.pids {
		out = append(out, strconv.Itoa(pid))
	}
	return strings.Join(out, ",")
}

func newScene(t *testing.T) *scene {
	base := t.TempDir()
	s := &scene{t: t, bin: testbin.Path(t), tag: testbin.Tag(t), stateDir: filepath.Join(base, "state"),
		home: filepath.Join(base, "home"), userHome: filepath.Join(base, "user")}
	must(t, lockfile.EnsureDir(s.stateDir))
	must(t, os.MkdirAll(s.home, 0o700))
	must(t, os.MkdirAll(s.userHome, 0o700))
	var err error
	if s.records, err = lockfile.OpenRecords(s.stateDir); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, id := range s.orphans {
			if alive(id) {
				_ = proc.Signal(id, syscall.SIGKILL) // ours: the scene started it, and the identity still matches
			}
		}
	})
	return s
}

// env is the scene's environment: its tag, HERMES_HOME and HOME (so a reap
// reads the scene's ~/.hermes/desktop-ssh, never the real one), then extra.
func (s *scene) env(extra ...string) []string {
	env := slices.DeleteFunc(testbin.NewEnv(s.tag, s.home), func(kv string) bool { return strings.HasPrefix(kv, "HOME=") })
	return append(append(env, "HOME="+s.userHome), extra...)
}

// orphan starts argv through a shell that exits at once, so argv is
// reparented (to init, or to the nearest subreaper) and returns its identity.
func (s *scene) orphan(env []string, argv ...string) proc.Identity {
	s.t.Helper()
	cmd := exec.Command("sh", append([]string{"-c", `"$@" >/dev/null 2>&1 </dev/null & echo $!`, "sh"}, argv...)...)
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		s.t.Fatalf("start orphan %v: %v", argv, err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		s.t.Fatal(err)
	}
	var p proc.Process
	waitfor.Until(s.t, 5*time.Second, fmt.Sprintf("orphan %d to be reparented", pid), func() bool {
		p, err = proc.Stat(pid)
		return err != nil || p.PPID != cmd.Process.Pid
	})
	if err != nil {
		s.t.Fatalf("orphan %d: %v", pid, err)
	}
	if p.PPID != 1 {
		_ = proc.Signal(p.Identity(), syscall.SIGKILL) // ours: started just above
		s.t.Skipf("orphans are reparented to pid %d here, not to init: the orphan rules cannot be exercised", p.PPID)
	}
	s.pids = append(s.pids, pid)
	s.orphans = append(s.orphans, p.Identity())
	return p.Identity()
}

func (s *scene) serve(extra ...string) []string {
	return append([]string{s.bin, "serve"}, extra...)
}

// record writes an ownership record for id, owned by owner.
func (s *scene) record(id proc.Identity, nonce string, owner lockfile.Owner) {
	s.t.Helper()
	id.BootID = proc.BootID()
	r := &lockfile.Record{Schema: lockfile.RecordSchema, Name: "default", Nonce: nonce, BootID: proc.BootID(),
		Backend: &id, PGID: id.PID, Argv: []string{"hermes", "serve"}, Owner: owner, Created: time.Now().UTC()}
	must(s.t, s.records.Write(r))
}

// deadOwner returns the identity of a launcher that has exited.
func deadOwner(t *testing.T) lockfile.Owner {
	cmd := exec.Command("true")
	must(t, cmd.Start())
	id, err := proc.Lookup(cmd.Process.Pid)
	must(t, err)
	_ = cmd.Wait()
	nonce, _ := lockfile.NewNonce()
	return lockfile.Owner{Nonce: nonce, PID: id.PID, Start: id.Start}
}

func freePort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func alive(id proc.Identity) bool {
	ok, _ := proc.Alive(id)
	if !ok {
		return false
	}
	p, err := proc.Stat(id.PID)
	return err == nil && !p.Zombie
}

// TestBootReapScene builds one scene with every case the reaper must get
// right and checks each decision, then that only the intended processes
// are gone.
func TestBootReapScene(t *testing.T) {
	const minAge = 2 * time.Second
	s := newScene(t)
	loopback := []string{"--host", "127.0.0.1", "--port", "0"}
	type want struct {
		id     proc.Identity
		action reap.Action
		reason string
	}
	var cases = map[string]*want{}

	// An orphan whose record names a dead launcher: reaped however young.
	nonce, _ := lockfile.NewNonce()
	deadRec := s.orphan(s.env("HERMES_PARENT_NONCE="+nonce), s.serve(loopback...)...)
	s.record(deadRec, nonce, deadOwner(t))
	cases["dead owner"] = &want{deadRec, reap.ActionReaped, reap.ReasonOwnerDead}

	// An orphan owned by a live launcher: we hold its owner lock here.
	ownerNonce, _ := lockfile.NewNonce()
	ownerLock, err := lockfile.AcquireOwner(s.stateDir, ownerNonce)
	must(t, err)
	defer ownerLock.Release()
	self, _ := proc.Self()
	liveNonce, _ := lockfile.NewNonce()
	owned := s.orphan(s.env("HERMES_PARENT_NONCE="+liveNonce), s.serve(loopback...)...)
	s.record(owned, liveNonce, lockfile.Owner{Nonce: ownerNonce, PID: self.PID, Start: self.Start})
	cases["owned"] = &want{owned, reap.ActionSpared, reap.ReasonOwned}

	// Unrecorded orphans: old enough goes, too young stays.
	old := s.orphan(s.env(), s.serve(loopback...)...)
	cases["old orphan"] = &want{old, reap.ActionReaped, reap.ReasonOrphanNoRecord}

	// Fixed-port and all-interfaces serves, orphaned and old: never.
	fixed := s.orphan(s.env(), s.serve("--host", "127.0.0.1", "--port", strconv.Itoa(freePort(t)))...)
	cases["fixed port"] = &want{fixed, reap.ActionSpared, reap.ReasonFixedPort}
	wide := s.orphan(s.env(), s.serve("--host", "0.0.0.0", "--port", "0")...)
	cases["0.0.0.0"] = &want{wide, reap.ActionSpared, reap.ReasonNotLoopback}

	// A remote SSH backend with the desktop's exact shape and a valid lock.
	sshBackend := s.orphan(s.env(), s.serve(loopback...)...)
	writeSSHLock(t, s.home, "0123456789abcdef0123456789abcdef", sshBackend.PID, true)
	cases["ssh lock"] = &want{sshBackend, reap.ActionSpared, reap.ReasonSSHLock}
	// ... and one whose lock is malformed but still names it: fail closed.
	sshBad := s.orphan(s.env(), s.serve(loopback...)...)
	writeSSHLock(t, s.home, "fedcba9876543210fedcba9876543210", sshBad.PID, false)
	cases["malformed ssh lock"] = &want{sshBad, reap.ActionSpared, reap.ReasonFailClosed}
	// ... and one whose lock is under ~/.hermes, where Hermes Desktop writes
	// them whatever HERMES_HOME is (here HERMES_HOME is elsewhere).
	sshHome := s.orphan(s.env(), s.serve(loopback...)...)
	writeSSHLock(t, filepath.Join(s.userHome, ".hermes"), "00112233445566778899aabbccddeeff", sshHome.PID, true)
	cases["ssh lock under ~/.hermes"] = &want{sshHome, reap.ActionSpared, reap.ReasonSSHLock}

	// A backend Hermes Desktop runs for an SSH session, with the desktop's
	// exact shape and no lock: its --ssh-session-token-file says whose it
	// is. (A shell stands in for it, blocked opening a FIFO nobody writes:
	// the built-in backend takes no such flag.)
	fifo := filepath.Join(t.TempDir(), "never")
	must(t, syscall.Mkfifo(fifo, 0o600))
	sshToken := s.orphan(s.env("FIFO="+fifo), "sh", "-c", `read x < "$FIFO"`, "serve", "--host", "127.0.0.1", "--port", "0",
		"--ssh-session-token-file", "/x")
	cases["ssh session token file"] = &want{sshToken, reap.ActionSpared, reap.ReasonSSHTokenFile}

	// The gateway named by its PID file, with a matching start time.
	gw := s.orphan(s.env(), s.serve(loopback...)...)
	ticks := strings.TrimPrefix(gw.Start, "linux:")
	must(t, os.WriteFile(filepath.Join(s.home, "gateway.pid"),
		[]byte(fmt.Sprintf(`{"pid":%d,"kind":"hermes-gateway","argv":["hermes","gateway"],"start_time":%s,"hermes_home":%q}`, gw.PID, ticks, s.home)), 0o600))
	cases["gateway"] = &want{gw, reap.ActionSpared, reap.ReasonGatewayPIDFile}

	// A record whose PID now belongs to an unrelated process.
	unrelated := exec.Command("sleep", "60")
	unrelated.Env = s.env()
	must(t, unrelated.Start())
	defer func() { _ = unrelated.Process.Kill(); _ = unrelated.Wait() }()
	unrelatedID, _ := proc.Lookup(unrelated.Process.Pid)
	s.pids = append(s.pids, unrelatedID.PID)
	staleNonce, _ := lockfile.NewNonce()
	s.record(proc.Identity{PID: unrelatedID.PID, Start: "linux:1"}, staleNonce, deadOwner(t))
	cases["reused pid"] = &want{unrelatedID, reap.ActionSpared, reap.ReasonIdentityMismatch}

	// The reap runs under an orphaned, old, serve-shaped shell: its own
	// ancestor, never to be signalled. It waits for a trigger file.
	out := filepath.Join(t.TempDir(), "reap.json")
	script := fmt.Sprintf(`while [ ! -e %q.go ]; do sleep 0.05; done; %q reap --json --min-age %s --grace 1s --state-dir %q --only "$(cat %q.pids)" > %q; echo $? > %q.code`,
		out, s.bin, minAge, s.stateDir, out, out, out)
	ancestor := s.orphan(s.env(), "sh", "-c", script, "serve", "--host", "127.0.0.1", "--port", "0")
	cases["ancestor"] = &want{ancestor, reap.ActionSpared, reap.ReasonAncestor}

	time.Sleep(minAge + 500*time.Millisecond) // everything above is now old enough
	young := s.orphan(s.env(), s.serve(loopback...)...)
	cases["young orphan"] = &want{young, reap.ActionSpared, reap.ReasonTooYoung}

	// First a dry run: every verdict, nothing touched.
	dry := runReap(t, s, "--dry-run", "--min-age", minAge.String())
	for name, w := range cases {
		if name == "ancestor" {
			continue // only the real run below runs under it
		}
		wantAction := w.action
		if wantAction == reap.ActionReaped {
			wantAction = reap.ActionWouldReap
		}
		checkDecision(t, "dry run: "+name, dry, w.id.PID, wantAction, w.reason)
		if !alive(w.id) {
			t.Errorf("dry run: %s (pid %d) was signalled", name, w.id.PID)
		}
	}
	if entries, _ := os.ReadDir(s.records.Dir()); len(entries) != 3 {
		t.Errorf("dry run changed the records: %d files", len(entries))
	}

	must(t, os.WriteFile(out+".pids", []byte(s.only()), 0o600))
	must(t, os.WriteFile(out+".go", nil, 0o600))
	var report reap.Report
	waitfor.Until(t, 30*time.Second, "the reap under the ancestor shell to finish", func() bool {
		data, err := os.ReadFile(out + ".code")
		return err == nil && len(data) > 0
	})
	raw, _ := os.ReadFile(out)
	must(t, json.Unmarshal(raw, &report))
	for name, w := range cases {
		checkDecision(t, name, &report, w.id.PID, w.action, w.reason)
		wantAlive := w.action != reap.ActionReaped
		if name == "ancestor" {
			continue // it exits by itself once the reap is done
		}
		if got := alive(w.id); got != wantAlive {
			t.Errorf("%s (pid %d): alive %v after the reap, want %v", name, w.id.PID, got, wantAlive)
		}
	}
	if got := report.Summary(); !strings.HasPrefix(got, "reaped 2,") {
		t.Errorf("summary: got %q, want reaped 2", got)
	}
	// The dead owner's record and the stale one are dropped; the live
	// owner's record stays.
	if entries, _ := os.ReadDir(s.records.Dir()); len(entries) != 1 || entries[0].Name() != liveNonce+".json" {
		t.Errorf("records after the reap: %v, want only %s.json", entries, liveNonce)
	}
	// Leave nothing behind: the spared test processes are ours to end.
	for name, w := range cases {
		if alive(w.id) && name != "reused pid" {
			_ = proc.Signal(w.id, 9)
		}
	}
}

// An empty or whitespace-only gateway PID file is no record to Hermes. It
// must not make the reap fail closed: a genuine old orphan beside it is
// still reaped.
func TestReapEmptyGatewayFile(t *testing.T) {
	const minAge = time.Second
	s := newScene(t)
	must(t, os.WriteFile(filepath.Join(s.home, "gateway.pid"), nil, 0o600))
	must(t, os.WriteFile(filepath.Join(s.home, "gateway.lock"), []byte(" \n"), 0o600))
	old := s.orphan(s.env(), s.serve("--host", "127.0.0.1", "--port", "0")...)
	time.Sleep(minAge + 500*time.Millisecond)
	r := runReap(t, s, "--min-age", minAge.String(), "--grace", "1s")
	checkDecision(t, "old orphan beside an empty gateway.pid", r, old.PID, reap.ActionReaped, reap.ReasonOrphanNoRecord)
	if alive(old) {
		t.Errorf("old orphan %d: alive after the reap, want reaped", old.PID)
	}
}

// `reap --min-age 0s` means no minimum, not the 180 s default: a fresh
// orphan is reaped, by the command itself and through a running instance
// (whose own minimum is an hour). Left unset, the same orphan is too young.
func TestReapMinAgeZero(t *testing.T) {
	s := newScene(t)
	loopback := []string{"--host", "127.0.0.1", "--port", "0"}
	fresh := s.orphan(s.env(), s.serve(loopback...)...)
	checkDecision(t, "--min-age unset", runReap(t, s, "--dry-run"), fresh.PID, reap.ActionSpared, reap.ReasonTooYoung)
	checkDecision(t, "--min-age 0s", runReap(t, s, "--min-age", "0s", "--grace", "1s"), fresh.PID, reap.ActionReaped, reap.ReasonOrphanNoRecord)
	if alive(fresh) {
		t.Errorf("fresh orphan %d: alive after reap --min-age 0s, want reaped", fresh.PID)
	}

	l := testbin.StartLauncher(t) // --min-orphan-age 1h
	l.WaitReady(1, readyWait)
	viaInstance := s.orphan(s.env(), s.serve(loopback...)...)
	out, errOut, code := l.CLI("reap", "--json", "--only", strconv.Itoa(viaInstance.PID), "--min-age", "0s", "--grace", "1s")
	if code != 0 {
		t.Fatalf("reap through the instance: exit %d: %s", code, errOut)
	}
	var r reap.Report
	must(t, json.Unmarshal([]byte(out), &r))
	checkDecision(t, "--min-age 0s through the instance", &r, viaInstance.PID, reap.ActionReaped, reap.ReasonOrphanNoRecord)
	if alive(viaInstance) {
		t.Errorf("fresh orphan %d: alive after the instance's reap --min-age 0s, want reaped", viaInstance.PID)
	}
	stopAndCheck(t, l)
}

func writeSSHLock(t *testing.T, home, id string, pid int, valid bool) {
	dir := filepath.Join(home, "desktop-ssh", id)
	must(t, os.MkdirAll(dir, 0o700))
	schema := 2
	if !valid {
		schema = 3
	}
	lock := fmt.Sprintf(`{"schemaVersion":%d,"protocolVersion":1,"ownershipId":%q,"spawnNonce":"0011223344556677",
"tokenFingerprint":"00112233445566778899aabbccddeeff","pid":%d,"port":41000,"profile":"default","hermesPath":"/usr/bin/hermes",
"hermesHome":"/home/u/.hermes","logPath":"/home/u/.hermes/desktop-ssh/%s/0011223344556677.log","startedAt":"2026-11-29T10:00:00Z"}`,
		schema, id, pid, id)
	must(t, os.WriteFile(filepath.Join(dir, "backend.lock.json"), []byte(lock), 0o600))
}

func runReap(t *testing.T, s *scene, args ...string) *reap.Report {
	t.Helper()
	cmd := exec.Command(s.bin, append([]string{"reap", "--json", "--state-dir", s.stateDir, "--only", s.only()}, args...)...)
	cmd.Env = s.env()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("reap %v: %v\n%s", args, err, out)
	}
	var r reap.Report
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("reap output: %v\n%s", err, out)
	}
	return &r
}

func checkDecision(t *testing.T, name string, r *reap.Report, pid int, action reap.Action, reason string) {
	t.Helper()
	for _, d := range r.Decisions {
		if d.PID == pid {
			if d.Action != action || d.Reason != reason {
				t.Errorf("%s (pid %d): got %s/%s (%s), want %s/%s", name, pid, d.Action, d.Reason, d.Detail, action, reason)
			}
			if d.Detail == "" {
				t.Errorf("%s: no detail", name)
			}
			return
		}
	}
	t.Errorf("%s (pid %d): no decision in the report", name, pid)
}

// killLauncherAndShim crashes the whole app at once, as a logout or the OOM
// killer would: both are frozen so neither can react, then killed, the shim
// first. Killed the other way round, the launcher's death would orphan the
// shim's process group while the shim is stopped, and the kernel answers
// that with SIGHUP and SIGCONT to the group: the shim would wake and tear
// its tree down as it should, which is not the crash this simulates.
func killLauncherAndShim(t *testing.T, l *testbin.Launcher, shim int) {
	t.Helper()
	for _, pid := range []int{l.Cmd.Process.Pid, shim} {
		must(t, syscall.Kill(pid, syscall.SIGSTOP))
	}
	must(t, syscall.Kill(shim, syscall.SIGKILL))
	// Our launcher is frozen and cannot reap it: wait for the zombie.
	waitfor.Until(t, 5*time.Second, fmt.Sprintf("shim %d to die of SIGKILL", shim), func() bool {
		st, err := os.ReadFile("/proc/" + strconv.Itoa(shim) + "/stat")
		return err != nil || bytes.Contains(st, []byte(") Z "))
	})
	must(t, syscall.Kill(l.Cmd.Process.Pid, syscall.SIGKILL))
}

// A launcher killed together with its shim leaves its backend's children
// behind. The next launcher's boot reap finds them through the dead owner's
// record and the nonce they inherited, and reaps them before it spawns.
// Without a cgroup (--containment process-tree, as on a host where none
// can be had): with one, the boot reap kills the whole cgroup first
// (containment_linux_test.go).
func TestBootReapAfterLauncherAndShimDied(t *testing.T) {
	l1 := testbin.StartLauncher(t, "--grace", "1s", "--containment", "process-tree",
		"--backend-cmd", "{bin} serve --host 127.0.0.1 --port 0 --spawn-children 2 --spawn-setsid-children 2")
	l1.WaitReady(1, readyWait)
	first := testbin.WaitTagged(t, l1.Tag, 7, tagWait) // launcher, shim, backend, 4 children
	shim := status(t, l1).Backends[0].ShimPID
	killLauncherAndShim(t, l1, shim)
	if _, err := l1.WaitExit(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	// The built-in backend follows its parent (the shim) and exits; its
	// children do not (as with Hermes' MCP servers).
	var stranded []int
	waitfor.Try(10*time.Second, func() bool { stranded = testbin.Tagged(l1.Tag); return len(stranded) == 4 })
	if len(stranded) != 4 {
		t.Fatalf("stranded children: got %v, want the 4 children of the first tree (%v)", stranded, first)
	}

	l2 := l1.StartAnother("--min-orphan-age", "1h", "--containment", "process-tree") // only ownership evidence may reap
	l2.WaitReady(1, readyWait)
	for _, pid := range stranded {
		if slices.Contains(testbin.Tagged(l2.Tag), pid) {
			t.Errorf("pid %d of the first tree survived the boot reap", pid)
		}
	}
	st := status(t, l2)
	if st.BootReap == nil {
		t.Fatal("status has no boot_reap")
	}
	reaped := 0
	for _, d := range st.BootReap.Decisions {
		if slices.Contains(stranded, d.PID) {
			if d.Action != reap.ActionReaped || d.Reason != reap.ReasonOwnerDead {
				t.Errorf("pid %d: got %s/%s, want reaped/owner-dead", d.PID, d.Action, d.Reason)
			}
			reaped++
		}
	}
	if reaped != 4 {
		t.Errorf("boot reap decided on %d of the 4 stranded children", reaped)
	}
	if !strings.Contains(l2.Stdout.String(), "boot reap: reaped 4") {
		t.Errorf("launcher did not announce the boot reap:\n%s", l2.Stdout.String())
	}
	stopAndCheck(t, l2)
}

// The same crash with MCP-like children that carry no nonce: the next boot
// finds them through the descendants the dead owner's record lists (the
// process-tree mechanism again: a cgroup would hold them anyway).
func TestBootReapFindsScrubbedChildrenThroughTheRecord(t *testing.T) {
	l1 := testbin.StartLauncher(t, "--grace", "1s", "--sample-interval", "100ms", "--containment", "process-tree", "--backend-cmd",
		"{bin} serve --host 127.0.0.1 --port 0 --spawn-setsid-children 2 --scrub-child-env --keep-child-env "+testbin.TagEnv)
	l1.WaitReady(1, readyWait)
	waitSampledTree(t, l1, 3)          // backend and its 2 children
	time.Sleep(200 * time.Millisecond) // the record is rewritten after the sample
	shim := status(t, l1).Backends[0].ShimPID
	killLauncherAndShim(t, l1, shim)
	if _, err := l1.WaitExit(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	var stranded []int
	waitfor.Try(10*time.Second, func() bool { stranded = testbin.Tagged(l1.Tag); return len(stranded) == 2 })
	if len(stranded) != 2 {
		t.Fatalf("stranded: %v, want the 2 children", stranded)
	}
	l2 := l1.StartAnother("--min-orphan-age", "1h", "--containment", "process-tree")
	l2.WaitReady(1, readyWait)
	for _, pid := range stranded {
		if slices.Contains(testbin.Tagged(l2.Tag), pid) {
			t.Errorf("scrubbed child %d survived the boot reap", pid)
		}
	}
	stopAndCheck(t, l2)
}
