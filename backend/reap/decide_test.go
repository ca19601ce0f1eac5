package reap

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"hermes-desktop/backend/reapreport"
	"hermes-desktop/lockfile"
	"hermes-desktop/platform/proc"
)

// The decision rules, one case per rule, over a made-up process table. Each
// case is built so that it turns out differently without its rule: removing
// a rule from decide.go fails its case here. The e2e tests check the same
// rules end to end with real processes; these check them one at a time.

const (
	testUID  = 1000
	selfPID  = 100
	shellPID = 90  // the reaper's parent
	bashPID  = 400 // a live parent that is no service manager
	ownerPID = 300 // a dead launcher's PID, absent unless a case adds it
	target   = 500 // the process most cases judge
)

// fakeProc is one row of the fake table.
type fakeProc struct {
	p    proc.Process
	argv []string
	env  map[string]string
}

// fakeView is a view over a fake table. It is read-only once a reap
// starts, so scan's goroutines may share it.
type fakeView struct {
	procs   map[int]*fakeProc
	statErr map[int]error    // Stat fails with this error
	cmdErr  map[int]error    // Cmdline fails with this error
	locks   map[string]bool  // owner nonce -> owner lock held
	lockErr map[string]error // owner nonce -> the lock cannot be checked
	units   map[int]string   // pid -> service unit
}

func (v *fakeView) PIDs() ([]int, error) {
	var pids []int
	for pid := range v.procs {
		pids = append(pids, pid)
	}
	slices.Sort(pids)
	return pids, nil
}

func (v *fakeView) Stat(pid int) (proc.Process, error) {
	if err := v.statErr[pid]; err != nil {
		return proc.Process{}, err
	}
	fp, ok := v.procs[pid]
	if !ok {
		return proc.Process{}, fmt.Errorf("stat %d: %w", pid, proc.ErrNotFound)
	}
	return fp.p, nil
}

func (v *fakeView) Cmdline(pid int) ([]string, error) {
	if err := v.cmdErr[pid]; err != nil {
		return nil, err
	}
	fp, ok := v.procs[pid]
	if !ok {
		return nil, fmt.Errorf("cmdline %d: %w", pid, proc.ErrNotFound)
	}
	return fp.argv, nil
}

func (v *fakeView) Getenv(pid int, key string) (string, bool, error) {
	fp, ok := v.procs[pid]
	if !ok {
		return "", false, fmt.Errorf("environ %d: %w", pid, proc.ErrNotFound)
	}
	value, set := fp.env[key]
	return value, set, nil
}

func (v *fakeView) OwnerLockHeld(nonce string) (bool, error) {
	if err := v.lockErr[nonce]; err != nil {
		return false, err
	}
	return v.locks[nonce], nil
}

func (v *fakeView) Running(id proc.Identity) (bool, error) {
	fp, ok := v.procs[id.PID]
	return ok && fp.p.Start == id.Start && !fp.p.Zombie, nil
}

func (v *fakeView) ServiceUnit(pid int) string { return v.units[pid] }

// startOf is the fake start marker of pid's process.
func startOf(pid int) string { return fmt.Sprintf("linux:%d", pid*10) }

func serveArgv(host, port string) []string {
	return []string{"/venv/bin/hermes", "serve", "--host", host, "--port", port}
}

// world is what one case sets up: the table, the options, the evidence on
// disk, and which PID it judges.
type world struct {
	v    *fakeView
	opts Options
	ev   evidence
	pid  int
}

// add puts a process into the table: started age ago, in its own process
// group, in the reaper's session (so no launchd-job rule applies).
func (w *world) add(pid, ppid int, age time.Duration, argv ...string) *fakeProc {
	fp := &fakeProc{argv: argv, env: map[string]string{}, p: proc.Process{
		PID: pid, PPID: ppid, PGID: pid, SID: shellPID, UID: testUID,
		Start: startOf(pid), Started: time.Now().Add(-age), Comm: argv[0],
	}}
	w.v.procs[pid] = fp
	return fp
}

// newWorld is the common scene: the reaper (selfPID) under a shell, a bash
// that parents nothing yet, and an old orphaned loopback serve (target)
// with no record. PID 1 is absent: on Windows a live PID 1 would be taken
// for the orphan's parent.
func newWorld() *world {
	w := &world{
		v: &fakeView{procs: map[int]*fakeProc{}, statErr: map[int]error{}, cmdErr: map[int]error{}, locks: map[string]bool{},
			lockErr: map[string]error{}, units: map[int]string{}},
		opts: Options{StateDir: "state", HermesHome: "home", MinAge: new(3 * time.Minute), Exclude: []int{}},
		pid:  target,
	}
	w.add(shellPID, 1, 2*time.Hour, "bash")
	w.add(selfPID, shellPID, time.Hour, "/opt/hermes-desktop", "run")
	w.add(bashPID, shellPID, 2*time.Hour, "bash")
	w.add(target, 1, time.Hour, serveArgv("127.0.0.1", "0")...)
	return w
}

// record makes nonce's ownership record of the process pid (with its
// current start marker), owned by ownerPID. The owner is dead unless the
// case adds its process or holds its lock.
func (w *world) record(nonce string, pid int) *lockfile.Record {
	rec := &lockfile.Record{
		Schema: 1, Name: "default", Nonce: nonce,
		Backend: &proc.Identity{PID: pid, Start: startOf(pid)},
		Owner:   lockfile.Owner{Nonce: "owner-" + nonce, PID: ownerPID, Start: startOf(ownerPID)},
	}
	w.ev.records = append(w.ev.records, rec)
	return rec
}

// judge runs the reaper over the world and returns its decision on w.pid.
func (w *world) judge(t *testing.T) (reapreport.Decision, bool) {
	t.Helper()
	r := newReaper(w.opts, w.v, selfPID, testUID, w.ev)
	decisions, _, err := r.judge()
	if err != nil {
		t.Fatalf("judge: %v", err)
	}
	for _, d := range decisions {
		if d.PID == w.pid {
			return d.Decision, true
		}
	}
	return reapreport.Decision{}, false
}

type decideCase struct {
	name   string
	setup  func(w *world)
	action reapreport.Action // "" means: no decision at all (not a candidate)
	reason string
	detail string // a phrase the detail must contain: which rule spoke
}

// neverSignalledCases are the rules no evidence overrides.
var neverSignalledCases = []decideCase{
	{"pid 1", func(w *world) {
		w.v.procs[shellPID].p.PPID = 0 // the reaper's chain does not reach PID 1 (a PID namespace)
		w.add(1, 0, time.Hour, serveArgv("127.0.0.1", "0")...)
		w.pid = 1
	}, reapreport.ActionSpared, reapreport.ReasonAncestor, "init"},
	{"the reaper itself", func(w *world) {
		w.v.procs[selfPID].argv = serveArgv("127.0.0.1", "0")
		w.pid = selfPID
	}, reapreport.ActionSpared, reapreport.ReasonAncestor, "the reaper itself"},
	{"an ancestor", func(w *world) {
		w.v.procs[shellPID].argv = serveArgv("127.0.0.1", "0")
		w.pid = shellPID
	}, reapreport.ActionSpared, reapreport.ReasonAncestor, "ancestor"},
	{"another user's", func(w *world) { w.v.procs[target].p.UID = 0 }, reapreport.ActionSpared, reapreport.ReasonOtherUser, "uid 0"},
	{"named by HERMES_DESKTOP_CHILD_PID", func(w *world) { w.opts.Exclude = []int{target} }, reapreport.ActionSpared, reapreport.ReasonExcludedEnv, "HERMES_DESKTOP_CHILD_PID"},
	{"named by an SSH lock", func(w *world) {
		w.ev.ssh = []lockfile.ForeignClaim{{Path: "home/desktop-ssh/h/backend.lock.json", PID: target}}
	}, reapreport.ActionSpared, reapreport.ReasonSSHLock, "SSH backend's lock"},
	{"carries --ssh-session-token-file", func(w *world) {
		w.v.procs[target].argv = append(serveArgv("127.0.0.1", "0"), "--ssh-session-token-file", "/x")
	}, reapreport.ActionSpared, reapreport.ReasonSSHTokenFile, "--ssh-session-token-file"},
	{"carries --ssh-session-token-file=", func(w *world) {
		w.v.procs[target].argv = append(serveArgv("127.0.0.1", "0"), "--ssh-session-token-file=/run/t")
	}, reapreport.ActionSpared, reapreport.ReasonSSHTokenFile, "SSH session"},
	{"a shim whose backend carries the SSH session token", func(w *world) {
		w.v.procs[target].argv = append([]string{"/opt/hermes-desktop", "watchdog", "--"},
			append(serveArgv("127.0.0.1", "0"), "--ssh-session-token-file", "/x")...)
	}, reapreport.ActionSpared, reapreport.ReasonSSHTokenFile, "SSH session"},
	{"an heir that carries the SSH session token", func(w *world) {
		w.record("n1", 450)
		w.v.procs[target].argv = []string{"node", "mcp.js", "--ssh-session-token-file", "/x"}
		w.v.procs[target].env["HERMES_PARENT_NONCE"] = "n1"
	}, reapreport.ActionSpared, reapreport.ReasonSSHTokenFile, "SSH session"},
	{"a flag that only starts like the token flag", func(w *world) {
		w.v.procs[target].argv = append(serveArgv("127.0.0.1", "0"), "--ssh-session-token-filename=/x")
	}, reapreport.ActionWouldReap, reapreport.ReasonOrphanNoRecord, "orphaned"},
	{"named by the gateway PID file", func(w *world) {
		w.ev.gateway = []lockfile.ForeignClaim{{Path: "home/gateway.pid", PID: target, StartTicks: target * 10}}
	}, reapreport.ActionSpared, reapreport.ReasonGatewayPIDFile, "gateway's PID file"},
	{"stale gateway PID file: its PID was reused", func(w *world) {
		w.ev.gateway = []lockfile.ForeignClaim{{Path: "home/gateway.pid", PID: target, StartTicks: 7}}
	}, reapreport.ActionWouldReap, reapreport.ReasonOrphanNoRecord, "orphaned"},
	{"malformed claim naming the pid", func(w *world) {
		w.ev.ssh = []lockfile.ForeignClaim{{Path: "home/desktop-ssh/h/backend.lock.json", PID: target, Err: errors.New("bad json")}}
	}, reapreport.ActionSpared, reapreport.ReasonFailClosed, "malformed"},
	{"malformed claim naming no pid", func(w *world) {
		w.ev.gateway = []lockfile.ForeignClaim{{Path: "home/gateway.pid", Err: errors.New("bad json")}}
	}, reapreport.ActionSpared, reapreport.ReasonFailClosed, "names no readable PID"},
	{"unreadable SSH lock directory", func(w *world) {
		w.ev.sshErr = errors.New("permission denied")
	}, reapreport.ActionSpared, reapreport.ReasonFailClosed, "SSH lock directory"},
	{"in a service unit", func(w *world) { w.v.units[target] = "hermes-gateway.service" }, reapreport.ActionSpared, reapreport.ReasonServiceManaged, "hermes-gateway.service"},
	{"in our own service unit", func(w *world) {
		w.v.units[selfPID], w.v.units[target] = "hermes-desktop.service", "hermes-desktop.service"
	}, reapreport.ActionWouldReap, reapreport.ReasonOrphanNoRecord, "orphaned"},
	{"not on loopback", func(w *world) { w.v.procs[target].argv = serveArgv("0.0.0.0", "0") }, reapreport.ActionSpared, reapreport.ReasonNotLoopback, "not on loopback"},
	{"fixed port", func(w *world) { w.v.procs[target].argv = serveArgv("127.0.0.1", "9119") }, reapreport.ActionSpared, reapreport.ReasonFixedPort, "fixed port"},
	{"unreadable stat", func(w *world) { w.v.statErr[target] = errors.New("permission denied") }, reapreport.ActionSpared, reapreport.ReasonFailClosed, "identity could not be read"},
}

// recordCases apply the ownership records: positive evidence either way.
var recordCases = []decideCase{
	{"record, owner lock held", func(w *world) {
		w.v.procs[target].p.PPID = bashPID // so only the record decides
		w.v.locks[w.record("n1", target).Owner.Nonce] = true
	}, reapreport.ActionSpared, reapreport.ReasonOwned, "belongs to the Hermes Desktop running now"},
	{"record, owner lock free but owner running", func(w *world) {
		w.v.procs[target].p.PPID = bashPID
		w.record("n1", target)
		w.add(ownerPID, shellPID, time.Hour, "/opt/hermes-desktop", "run")
	}, reapreport.ActionSpared, reapreport.ReasonOwned, "still runs"},
	{"record, owner lock unreadable", func(w *world) {
		w.v.lockErr[w.record("n1", target).Owner.Nonce] = errors.New("EACCES")
	}, reapreport.ActionSpared, reapreport.ReasonFailClosed, "could not be checked"},
	{"record, owner dead", func(w *world) {
		w.v.procs[target].p.PPID = bashPID // not an orphan, and young: only the record can doom it
		w.v.procs[target].p.Started = time.Now().Add(-time.Second)
		w.record("n1", target)
	}, reapreport.ActionWouldReap, reapreport.ReasonOwnerDead, "which has exited"},
	{"record of a reused PID: judged as unrecorded", func(w *world) {
		w.record("n1", target).Backend.Start = "linux:1"
	}, reapreport.ActionWouldReap, reapreport.ReasonOrphanNoRecord, "reused"},
	{"record of a reused PID that is no backend", func(w *world) {
		w.v.procs[target].argv = []string{"vim", "notes.txt"}
		w.record("n1", target).Backend.Start = "linux:1"
	}, reapreport.ActionSpared, reapreport.ReasonIdentityMismatch, "not a backend"},
	{"record contradicted by the nonce", func(w *world) {
		w.record("n1", target)
		w.v.procs[target].env["HERMES_PARENT_NONCE"] = "n2"
	}, reapreport.ActionSpared, reapreport.ReasonIdentityMismatch, "contradictory"},
	{"heir by nonce", func(w *world) {
		w.record("n1", 450) // the backend itself is gone
		w.v.procs[target].argv = []string{"node", "mcp-server.js"}
		w.v.procs[target].p.Started = time.Now().Add(-time.Second) // too young to go as an orphan
		w.v.procs[target].env["HERMES_PARENT_NONCE"] = "n1"
	}, reapreport.ActionWouldReap, reapreport.ReasonOwnerDead, "started by a backend"},
	{"heir by the recorded tree", func(w *world) {
		w.record("n1", 450).Descendants = []proc.Identity{{PID: target, Start: startOf(target)}}
		w.v.procs[target].argv = []string{"python3", "mcp.py"} // its environment was scrubbed
		w.v.procs[target].p.Started = time.Now().Add(-time.Second)
	}, reapreport.ActionWouldReap, reapreport.ReasonOwnerDead, "started by a backend"},
	{"recorded descendant whose PID was reused", func(w *world) {
		w.record("n1", 450).Descendants = []proc.Identity{{PID: target, Start: "linux:1"}}
		w.v.procs[target].argv = []string{"python3", "mcp.py"}
	}, "", "", ""},
	{"nonce of a live owner's backend", func(w *world) {
		w.v.locks[w.record("n1", 450).Owner.Nonce] = true
		w.v.procs[target].argv = []string{"node", "mcp-server.js"}
		w.v.procs[target].env["HERMES_PARENT_NONCE"] = "n1"
	}, "", "", ""},
}

// orphanCases judge processes with no (valid) record.
var orphanCases = []decideCase{
	{"corrupt record present", func(w *world) {
		w.ev.bad = []lockfile.SetAside{{File: "n9.json", Reason: errors.New("unexpected EOF")}}
	}, reapreport.ActionSpared, reapreport.ReasonFailClosed, "could not be read"},
	{"not an orphan", func(w *world) { w.v.procs[target].p.PPID = bashPID }, reapreport.ActionSpared, reapreport.ReasonNotOrphan, "is alive"},
	{"too young", func(w *world) {
		w.v.procs[target].p.Started = time.Now().Add(-10 * time.Second)
	}, reapreport.ActionSpared, reapreport.ReasonTooYoung, "only"},
	{"old orphan", func(w *world) {}, reapreport.ActionWouldReap, reapreport.ReasonOrphanNoRecord, "with no owner"},
	{"fresh orphan, minimum age 0: no minimum", func(w *world) {
		w.v.procs[target].p.Started = time.Now()
		w.opts.MinAge = new(time.Duration(0))
	}, reapreport.ActionWouldReap, reapreport.ReasonOrphanNoRecord, "with no owner"},
	{"orphan of 179 s, minimum age unset: 180 s", func(w *world) {
		w.v.procs[target].p.Started = time.Now().Add(-179 * time.Second)
		w.opts.MinAge = nil
	}, reapreport.ActionSpared, reapreport.ReasonTooYoung, "minimum 3 min"},
	{"orphan without a start time, minimum age 0", func(w *world) {
		w.v.procs[target].p.Started = time.Time{}
		w.opts.MinAge = new(time.Duration(0))
	}, reapreport.ActionSpared, reapreport.ReasonTooYoung, "age is not known"},
	{"old orphaned watchdog shim", func(w *world) {
		w.v.procs[target].argv = append([]string{"/opt/hermes-desktop", "watchdog", "--"}, serveArgv("127.0.0.1", "0")...)
	}, reapreport.ActionWouldReap, reapreport.ReasonOrphanNoRecord, "with no owner"},
	{"not serve-shaped", func(w *world) { w.v.procs[target].argv = []string{"vim"} }, "", "", ""},
	{"a zombie", func(w *world) { w.v.procs[target].p.Zombie = true }, "", "", ""},
	{"outside Only", func(w *world) { w.opts.Only = []int{bashPID} }, "", "", ""},
}

func TestDecide(t *testing.T) {
	for _, group := range [][]decideCase{neverSignalledCases, recordCases, orphanCases} {
		for _, tc := range group {
			t.Run(tc.name, func(t *testing.T) {
				w := newWorld()
				tc.setup(w)
				d, ok := w.judge(t)
				if tc.action == "" {
					if ok {
						t.Errorf("got %v/%v (%s), want no decision", d.Action, d.Reason, d.Detail)
					}
					return
				}
				if !ok {
					t.Fatalf("got no decision on pid %d, want %v/%v", w.pid, tc.action, tc.reason)
				}
				if d.Action != tc.action || d.Reason != tc.reason {
					t.Errorf("got %v/%v, want %v/%v (detail: %s)", d.Action, d.Reason, tc.action, tc.reason, d.Detail)
				}
				if !strings.Contains(d.Detail, tc.detail) {
					t.Errorf("detail: got %q, want it to contain %q", d.Detail, tc.detail)
				}
			})
		}
	}
}

// The rules that guard a doomed tree's members apply to processes that are
// no candidates at all: a gateway a backend started is never signalled.
func TestUntouchable(t *testing.T) {
	cases := []struct {
		name  string
		setup func(w *world)
		want  bool
	}{
		{"plain child", func(w *world) {}, false},
		{"another user's", func(w *world) { w.v.procs[target].p.UID = 0 }, true},
		{"named by the gateway PID file", func(w *world) {
			w.ev.gateway = []lockfile.ForeignClaim{{Path: "home/gateway.pid", PID: target}}
		}, true},
		{"carries --ssh-session-token-file", func(w *world) {
			w.v.procs[target].argv = []string{"python3", "tool.py", "--ssh-session-token-file", "/x"}
		}, true},
		{"carries --ssh-session-token-file=", func(w *world) {
			w.v.procs[target].argv = []string{"python3", "tool.py", "--ssh-session-token-file=/x"}
		}, true},
		{"unreadable", func(w *world) { w.v.statErr[target] = errors.New("permission denied") }, true},
		{"unreadable command line", func(w *world) { w.v.cmdErr[target] = errors.New("permission denied") }, true},
		{"command line gone", func(w *world) { w.v.cmdErr[target] = fmt.Errorf("cmdline: %w", proc.ErrNotFound) }, false},
		{"gone", func(w *world) { delete(w.v.procs, target) }, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld()
			w.v.procs[target].argv = []string{"gateway"}
			tc.setup(w)
			r := newReaper(w.opts, w.v, selfPID, testUID, w.ev)
			if got := r.untouchable(target); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// A scan that finds no candidate reports none as an empty list: a reader
// of `reap --json` gets "decisions": [], not null.
func TestJudgeNoCandidatesIsEmptyNotNull(t *testing.T) {
	w := newWorld()
	w.v.procs = map[int]*fakeProc{}
	w.add(selfPID, 1, time.Hour, "/opt/hermes-desktop", "run")
	r := newReaper(w.opts, w.v, selfPID, testUID, w.ev)
	decisions, _, err := r.judge()
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(reapreport.Report{Decisions: decisionsOf(decisions)})
	if !strings.Contains(string(data), `"decisions":[]`) {
		t.Errorf("report with no candidate: got %s, want \"decisions\":[]", data)
	}
}
