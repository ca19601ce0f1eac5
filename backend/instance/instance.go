// Package instance is one run of a backend: the process the launcher
// starts (the watchdog shim, or the backend itself without it) and the tree
// under it; the Hermes environment it is given (nonce, parent marker,
// session token for desktop-owned kinds), its output lines, readiness (ready
// line or file, then the health check behind Hermes' auth gate) and its
// teardown (TERM, grace, KILL of the whole tree). A Supervisor in package
// backend owns each instance and is the only one to act on it.
//
// It sits below backend: it imports the process primitives, lockfile,
// watchdog's protocol and backend's leaf packages (runspec, logs, reclaim,
// leakguard, settings), never backend.
package instance

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"hermes-desktop/backend/hermes"
	"hermes-desktop/backend/leakguard"
	"hermes-desktop/backend/logs"
	"hermes-desktop/backend/reclaim"
	"hermes-desktop/backend/runspec"
	"hermes-desktop/backend/settings"
	"hermes-desktop/lockfile"
	"hermes-desktop/platform/proc"
	"hermes-desktop/watchdog"
)

// Instance is one run of a backend: the process we started (the watchdog
// shim, or the backend itself when the shim is off), the tree under it, and
// the goroutines that read its output and wait for it.
//
// Goroutines: two output readers (end at EOF, or when the waiter closes the
// pipes after the tree is gone) and one waiter (ends when the leader has been
// reaped; it closes exited). All three are owned by the instance.
type Instance struct {
	spec  *runspec.Spec
	nonce string
	argv  []string  // what was executed
	cmd   *exec.Cmd // nil for an instance adopted from a previous launcher
	// waited drops cmd's registration with proc.CollectOrphans once cmd.Wait
	// has returned (proc.StartChild); set with cmd.
	waited    func()
	leader    proc.Identity
	handle    *proc.Handle // on leader
	viaShim   bool
	shim      shimPipes          // set when viaShim
	reclaimer *reclaim.Reclaimer // nil when nothing reclaims orphans
	readyFile string
	// token is the session token the backend was given (desktop-owned
	// kinds only): sent on health checks, shown only when the user asks
	// for the connection details, never logged.
	token string
	log   *logs.Log
	// jobKiller is an OS mechanism that can kill the whole tree at once (a
	// kill-on-close job object on Windows); nil where the OS has none.
	jobKiller jobKiller

	// backendID is the backend's identity: the leader without a shim, or
	// what the shim reported. Written once before it is published on
	// backendKnown.
	backendID    proc.Identity
	backendKnown chan struct{}

	// Containment, fixed at spawn (before the goroutines start): the
	// launcher's plan, what holds the tree, why nothing stronger, and the
	// cgroup planned for it ("" when none).
	plan       *Plan
	contain    Containment
	containWhy string
	cgroup     string
	// reportedCgroup and cgroupErr are what the shim reported: the cgroup
	// the backend was started in, or why it has none. Written once before
	// backendKnown is closed, like backendID.
	reportedCgroup string
	cgroupErr      string

	portFound chan int // buffered(1): the first port seen in the output
	exited    chan struct{}
	status    ExitStatus // valid once exited is closed

	detached atomic.Bool // handed over to another launcher (update handoff)

	// seenURL is the first loopback URL the process printed: where a
	// Hermes that found a backend already running says it is (attach).
	seenURL atomic.Pointer[string]
	// exe is the backend executable as it was on disk at the start.
	exe ExeStamp

	// Owned by the instance's owner (its Supervisor's goroutine): what its
	// record says beyond the identities, the leak guard that samples its
	// tree, and whether the backend was let start (Release).
	rec      recordState
	guard    *leakguard.Guard
	released bool

	mu     sync.Mutex // guards reaped and tree; held through a teardown
	reaped bool
	tree   *proc.Tree

	readers sync.WaitGroup
	outR    *os.File
	errR    *os.File
}

// jobKiller kills a whole backend tree through an OS facility (not to be
// confused with the leak guard, which only samples and warns).
type jobKiller interface {
	kill()
	release()
}

// Params is what an instance needs from its launcher.
type Params struct {
	// Spec is what to run; its defaults are applied.
	Spec *runspec.Spec
	// Owner and OwnerNonce name the launcher (HERMES_PARENT_* of the shim).
	Owner      proc.Identity
	OwnerNonce string
	// StateDir holds the ready files; HermesHome is the backend's HERMES_HOME.
	StateDir   string
	HermesHome string
	// Self is the hermes-desktop executable, for the shim.
	Self string
	// ViaShim starts the backend behind the watchdog shim.
	ViaShim bool
	// Log receives the output lines.
	Log *logs.Log
	// Reclaimer, if set, learns about every child we start and reap.
	Reclaimer *reclaim.Reclaimer
	// Contain is the launcher's containment plan; nil means the process
	// tree only (tests).
	Contain *Plan
	// LeakGuard configures each run's leak guard (Sample); Logger, which
	// may be nil, receives its warnings.
	LeakGuard leakguard.Config
	Logger    *slog.Logger
}

// errSpawn wraps errors that happen before the process exists.
var errSpawn = errors.New("instance: start")

// Spawn starts one run of a backend as p describes it: the watchdog shim
// (or the backend itself without one) in a group of its own, held by the
// launcher's containment plan, its output read into the backend's log.
// Behind the shim the backend starts only at Release, once the caller has
// recorded the shim; without one (--no-shim, debugging) it runs at once.
func Spawn(p Params) (*Instance, error) {
	nonce, err := lockfile.NewNonce()
	if err != nil {
		return nil, err
	}
	runDir := filepath.Join(p.StateDir, "run")
	if err := os.MkdirAll(runDir, 0o700); err != nil {
		return nil, fmt.Errorf("%w: create %s: %w", errSpawn, runDir, err)
	}
	i := &Instance{
		spec:         p.Spec,
		nonce:        nonce,
		viaShim:      p.ViaShim,
		readyFile:    filepath.Join(runDir, nonce+".ready"),
		log:          p.Log,
		backendKnown: make(chan struct{}),
		portFound:    make(chan int, 1),
		exited:       make(chan struct{}),
		rec:          recordState{owner: lockfile.Owner{Nonce: p.OwnerNonce, PID: p.Owner.PID, Start: p.Owner.Start}},
		guard:        newGuard(p.LeakGuard, p.Logger, p.Spec.Name, p.Log),
	}
	i.exe = StampExecutable(p.Spec.Command[0])
	env, token, err := backendEnv(p, nonce, i.readyFile)
	if err != nil {
		return nil, err
	}
	i.token = token
	i.argv = p.Spec.Command
	i.reclaimer = p.Reclaimer
	i.plan = p.Contain
	i.planContainment(p)
	var pipes *watchdog.ShimPipes
	if p.ViaShim {
		if pipes, err = i.prepareShim(p); err != nil {
			return nil, err
		}
	}
	err = i.start(env, pipes)
	if pipes != nil {
		// The shim has its copies; ours would keep the report from ever
		// seeing EOF should the shim die.
		pipes.CloseShimEnds()
	}
	if err != nil {
		i.closeShimPipes()
		return nil, err
	}
	i.rec.created = time.Now()
	return i, nil
}

// backendEnv builds the environment of the Hermes contract on top of ours,
// dropping any HERMES_PARENT_* / session values we inherited ourselves. A
// desktop-owned backend also gets HERMES_DESKTOP=1 and a fresh session
// token, which it returns; a dashboard gets neither (Hermes would hide it
// from host discovery, and it makes and injects its own token).
func backendEnv(p Params, nonce, readyFile string) (env []string, token string, err error) {
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case hermes.EnvDesktop, hermes.EnvParentPID, hermes.EnvParentMarker, hermes.EnvParentNonce,
			hermes.EnvSessionToken, hermes.EnvHome, hermes.EnvReadyFile:
			continue
		}
		env = append(env, kv)
	}
	env = append(env,
		hermes.EnvParentPID+"="+strconv.Itoa(p.Owner.PID),
		hermes.EnvParentMarker+"="+proc.HermesMarker(p.Owner),
		hermes.EnvParentNonce+"="+nonce,
		hermes.EnvHome+"="+p.HermesHome,
		hermes.EnvReadyFile+"="+readyFile,
	)
	if p.Spec.Kind == settings.KindCustom && os.Getenv("PYTHONUNBUFFERED") == "" {
		// Python block-buffers stdout into a pipe: `python3 -m http.server`
		// would print its port only when it exits, so it would never be
		// ready, and its log would come in 8 KiB lumps (issue 23, item 2).
		env = append(env, "PYTHONUNBUFFERED=1")
	}
	if !p.Spec.DesktopOwned() {
		return env, "", nil
	}
	if token, err = hermes.NewSessionToken(); err != nil {
		return nil, "", fmt.Errorf("%w: %w", errSpawn, err)
	}
	return append(env, hermes.EnvDesktop+"="+hermes.DesktopOn, hermes.EnvSessionToken+"="+token), token, nil
}

// command is argv as it will be started: in a group of its own, and
// inheriting the shim's ends of pipes when it runs the shim (nil
// otherwise).
func (i *Instance) command(env []string, pipes *watchdog.ShimPipes) (*exec.Cmd, error) {
	cmd := exec.Command(i.argv[0], i.argv[1:]...)
	cmd.Env = env
	setupCommand(cmd)
	if pipes != nil {
		if err := pipes.Attach(cmd); err != nil {
			return nil, fmt.Errorf("%w: %w", errSpawn, err)
		}
	}
	return cmd, nil
}

func (i *Instance) start(env []string, pipes *watchdog.ShimPipes) error {
	cmd, err := i.command(env, pipes)
	if err != nil {
		return err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("%w: stdout pipe: %w", errSpawn, err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return fmt.Errorf("%w: stderr pipe: %w", errSpawn, err)
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	err = i.startCommand(cmd)
	outW.Close() // the child has its copies; ours would keep EOF from coming
	errW.Close()
	if err == nil {
		i.cmd, i.outR, i.errR = cmd, outR, errR
		err = i.identify(cmd.Process.Pid)
	}
	if err != nil {
		outR.Close()
		errR.Close()
		return err
	}
	i.watch()
	return nil
}

// startCommand starts cmd through proc's registry of the children we wait
// for (wait, below), not proc.CollectOrphans' nor the reclaimer's, before
// its zombie can be seen, however soon it exits; the reclaimer, when there
// is one, learns the backend's nonce first.
func (i *Instance) startCommand(cmd *exec.Cmd) error {
	if i.reclaimer != nil {
		i.reclaimer.Expect(i.nonce)
	}
	var err error
	if i.waited, err = proc.StartChild(cmd); err != nil {
		return fmt.Errorf("%w %q: %w", errSpawn, i.argv[0], err)
	}
	return nil
}

// identify pins the started child's identity and a handle on it. Our
// unreaped child cannot vanish or be replaced, so this only fails if /proc
// is unreadable; then we cannot supervise and must not run: the child is
// killed and reaped.
func (i *Instance) identify(pid int) error {
	var err error
	if i.leader, err = proc.Lookup(pid); err == nil {
		i.handle, err = proc.Open(i.leader)
	}
	if err == nil {
		return nil
	}
	_ = i.cmd.Process.Kill()
	_ = i.cmd.Wait()
	i.waited()
	if i.reclaimer != nil {
		i.reclaimer.ChildExited()
	}
	return fmt.Errorf("%w: identify pid %d: %w", errSpawn, pid, err)
}

// watch sets up what follows the started tree and starts the goroutines
// the instance owns: the shim's report reader, the output readers and the
// waiter.
func (i *Instance) watch() {
	pid := i.leader.PID
	i.tree = proc.NewTree(i.leader, GroupOf(pid))
	var err error
	if i.jobKiller, err = newJobKiller(pid); err != nil {
		i.log.Add("launcher", "warning: "+err.Error())
	}
	if i.contain == ContainmentSystemdScope {
		i.enterScope(i.plan) // before any goroutine of ours reads i.cgroup
	}
	if i.viaShim {
		go i.readShimReport()
	} else {
		i.backendID = i.leader
		close(i.backendKnown)
	}
	i.readers.Add(2)
	go i.readOutput(i.outR, "stdout")
	go i.readOutput(i.errR, "stderr")
	go i.wait()
}

// readOutput feeds each output line to the log and the ready matcher.
func (i *Instance) readOutput(r io.Reader, stream string) {
	defer i.readers.Done()
	re, _ := settings.CompileReadyRegex(i.spec.ReadyRegex) // validated by applyDefaults
	logs.ReadLines(r, func(line string) {
		i.log.Add(stream, line)
		if u := hermes.FindLoopbackURL(line); u != "" {
			i.seenURL.CompareAndSwap(nil, &u) // the first one counts
		}
		if m := re.FindStringSubmatch(line); m != nil {
			if port, err := strconv.Atoi(m[1]); err == nil && port > 0 && port <= 65535 {
				select {
				case i.portFound <- port:
				default: // only the first announcement counts
				}
			}
		}
	})
}

// wait owns the leader's exit: it notices the exit without reaping (the
// zombie keeps the process group id pinned), clears the rest of the tree,
// and only then reaps the leader.
func (i *Instance) wait() {
	i.handle.Wait(context.Background())
	if i.detached.Load() {
		// Handed over to a new launcher: its tree is not ours to end. Our
		// child is still ours to reap.
		if i.cmd != nil {
			_ = i.cmd.Wait()
			i.waited()
		}
		i.handle.Close()
		close(i.exited)
		return
	}
	i.teardown(i.spec.Grace)
	i.mu.Lock()
	if i.cmd != nil {
		_ = i.cmd.Wait() // the only reaper of this child
		i.waited()
	}
	i.reaped = true
	if i.reclaimer != nil {
		i.reclaimer.ChildExited()
	}
	i.tree.Close()
	if i.jobKiller != nil {
		i.jobKiller.release()
	}
	i.mu.Unlock()
	i.handle.Close()
	i.removeCgroup()
	i.closeShimPipes() // only now: an open lifeline is what keeps the shim's tree alive
	i.closeOutput()
	if i.cmd != nil {
		i.status = exitStatusOf(i.cmd.ProcessState)
	} else {
		i.status = ExitStatus{Code: -1, Unknown: true} // adopted: not our child, no wait status
	}
	os.Remove(i.readyFile) // our own scratch file, not a record
	close(i.exited)
}

// closeOutput waits briefly for the readers to drain, then closes the read
// ends: a descendant that escaped us would otherwise hold the pipes open
// and the readers forever.
func (i *Instance) closeOutput() {
	done := make(chan struct{})
	go func() { i.readers.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		i.outR.Close()
		i.errR.Close()
		<-done
	}
	i.outR.Close()
	i.errR.Close()
}

// teardown ends everything in the tree: a request to stop (askToStop:
// SIGTERM on Unix, the stop message on Windows; to the shim alone when
// there is one: it runs the same sequence on its side), the grace period,
// then SIGKILL to every tracked member and the group. It is idempotent and
// safe to call from the waiter and from stop at once: the second caller
// waits for the first and finds nothing left.
func (i *Instance) teardown(grace time.Duration) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.reaped {
		return
	}
	_ = i.tree.Refresh()
	// The backend's cgroup, when it has one, holds what the tree walk
	// lost (a double-forked daemon): its members are signalled too, and
	// "populated 0" is part of "gone".
	cg := i.openCgroup()
	// A live shim runs this same sequence over its tree and reaps it; when
	// the shim itself is gone (killed), we do its work.
	shimAlive := i.viaShim && !i.handle.Exited()
	wait := grace
	switch {
	case shimAlive && askToStop(i):
		wait += ShimKillMargin
	case shimAlive:
		wait = 0 // nothing heard the request: waiting would buy nothing
	default:
		askToStop(i)
		i.signalTreeTERM(cg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	allGone := i.handle.Wait(ctx) && i.tree.Wait(ctx) && cgroupGone(ctx, cg)
	cancel()
	_ = i.tree.Refresh() // children forked during the grace period
	if !allGone || len(i.tree.Alive()) > 0 {
		_ = i.handle.Signal(syscall.SIGKILL)
		i.killCgroup(cg) // every member at once, a child forked this instant included
		_ = i.tree.Signal(syscall.SIGKILL)
		if i.jobKiller != nil {
			i.jobKiller.kill()
		}
	}
	ctx, cancel = context.WithTimeout(context.Background(), proc.KillWait)
	defer cancel()
	if !i.handle.Wait(ctx) || !i.tree.Wait(ctx) || !cgroupGone(ctx, cg) {
		i.log.Add("launcher", fmt.Sprintf("warning: processes still alive %v after SIGKILL", i.tree.Alive()))
	}
}

const (
	// ShimKillMargin is extra time the launcher gives a shim beyond the
	// grace period before killing the tree itself.
	ShimKillMargin = 2 * time.Second
	// ExitWait bounds the wait for the waiter after a teardown.
	ExitWait = 10 * time.Second
)

// Stop tears the instance down and waits until the leader is reaped. It is
// idempotent. Before Release, the lifeline is closed first: a shim still at
// its start barrier exits at once.
func (i *Instance) Stop() error {
	if !i.released {
		i.closeShimPipes()
	}
	i.teardown(i.spec.Grace)
	select {
	case <-i.exited:
		return nil
	case <-time.After(ExitWait):
		return fmt.Errorf("backend %s: leader %s did not exit after SIGKILL", i.spec.Name, i.leader)
	}
}

// track adds sampled processes to the tree the teardown ends, so a
// descendant that a killed shim would orphan is still known. Skipped when a
// teardown holds the tree: it refreshes the tree itself.
func (i *Instance) track(ps []leakguard.TreeProc) {
	if !i.mu.TryLock() {
		return
	}
	defer i.mu.Unlock()
	if i.reaped {
		return
	}
	ids := make([]proc.Identity, len(ps))
	for n, p := range ps {
		ids[n] = p.Identity()
	}
	i.tree.Prune(ids...)
	i.tree.Add(ids...)
}

// Adopted is what a predecessor says of a running instance it hands over.
type Adopted struct {
	Nonce   string
	Argv    []string
	Shim    proc.Identity
	Backend proc.Identity
	Token   string
	// Owner is the launcher adopting it, which its record now names.
	Owner lockfile.Owner
	// LeakGuard and Logger are as in Params.
	LeakGuard leakguard.Config
	Logger    *slog.Logger
	// What held its tree, why nothing stronger, and its cgroup ("" when
	// none).
	Containment       Containment
	ContainmentReason string
	Cgroup            string
}

// Adopt rebuilds an instance from what a predecessor handed over:
// the shim and backend (checked again here), the lifeline write end and the
// output pipes it inherited. The shim is not our child: its exit is seen
// through a handle and its status is unknown; its group is not pinned, so
// the tree is followed by identities only.
func Adopt(spec *runspec.Spec, b Adopted, lifeline, outR, errR *os.File, log *logs.Log, reclaimer *reclaim.Reclaimer) (*Instance, error) {
	h, err := proc.Open(b.Shim)
	if err == nil {
		err = proc.Check(b.Backend)
	}
	if err != nil {
		if h != nil {
			h.Close()
		}
		lifeline.Close()
		outR.Close()
		errR.Close()
		return nil, err
	}
	pollable(outR)
	pollable(errR)
	i := &Instance{
		spec: spec, nonce: b.Nonce, argv: b.Argv, leader: b.Shim, handle: h, viaShim: true,
		shim: shimPipes{lifeline: lifeline}, log: log, backendID: b.Backend, reclaimer: reclaimer, token: b.Token,
		backendKnown: make(chan struct{}), portFound: make(chan int, 1), exited: make(chan struct{}),
		tree: proc.NewTree(b.Shim, 0), outR: outR, errR: errR,
		contain: b.Containment, containWhy: b.ContainmentReason, cgroup: b.Cgroup,
		rec: recordState{owner: b.Owner, created: time.Now()}, released: true,
		guard: newGuard(b.LeakGuard, b.Logger, spec.Name, log),
	}
	i.takeReport(b.Cgroup, "")
	close(i.backendKnown)
	// Known from the start, so a teardown finds the tree even before the
	// first sample, and even if the shim dies first.
	i.tree.Add(b.Backend)
	_ = i.tree.Refresh()
	i.readers.Add(2)
	go i.readOutput(outR, "stdout")
	go i.readOutput(errR, "stderr")
	go i.wait()
	return i, nil
}

// Detach hands the instance over to a new launcher, which has its own
// copies of the lifeline and output pipes: ours are closed, our readers end,
// and the waiter will only reap, never tear down.
func (i *Instance) Detach() {
	i.detached.Store(true)
	i.closeShimPipes()
	i.outR.Close()
	i.errR.Close()
}

// backendPID returns the backend's PID, or 0 while the shim has not
// reported it.
func (i *Instance) backendPID() int {
	select {
	case <-i.backendKnown:
		return i.backendID.PID
	default:
		return 0
	}
}
