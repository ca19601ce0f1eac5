package backend

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"slices"
	"strconv"
	"sync"
	"time"

	"hermes-desktop/backend/handoff"
	"hermes-desktop/backend/instance"
	"hermes-desktop/backend/leakguard"
	"hermes-desktop/backend/logs"
	"hermes-desktop/backend/model"
	"hermes-desktop/backend/reap"
	"hermes-desktop/backend/runspec"
	"hermes-desktop/lockfile"
	"hermes-desktop/platform/human"
	"hermes-desktop/platform/proc"
)

// Supervisor runs one backend: spawn, readiness, restart with backoff,
// teardown. One goroutine (run) owns the running instance and is the only
// writer of the state; everything else talks to it through commands.
type Supervisor struct {
	spec    runspec.Spec
	params  instance.Params
	records *lockfile.Records
	log     *slog.Logger
	out     *logs.Log
	policy  restartPolicy
	guard   *leakguard.Guard
	// notify is told about every state change (publish + announce).
	notify func(st model.BackendStatus, entered bool)

	cmds chan command
	done chan struct{}
	// cancel ends run; set once by the launcher before run starts.
	cancel context.CancelFunc

	mu sync.Mutex // guards st
	st model.BackendStatus

	// Owned by the run goroutine:
	cur         *instance.Instance
	curCreated  time.Time
	curPort     int             // 0 until ready
	curReported bool            // the backend's identity is in the record
	curDesc     []proc.Identity // the descendants the record lists
	readyCh     chan readyResult
	stopReady   context.CancelFunc
	crashes     []time.Time
	// startTimeouts counts the starts in a row that timed out before the
	// backend was ready: the crash window forgets the crashes a long start
	// timeout spaces out (60 s apart against a 2 min window), this does
	// not. Reset by a ready backend and by a Start or Restart request.
	startTimeouts int
	timer         *time.Timer
	// ext is the backend someone else runs that the command attached to
	// (state external); nil otherwise.
	ext *instance.External
	// clock paces the samples; it runs only while there is an instance.
	clock *leakguard.Clock
	// shownTree is the last tree sample the window was told of: a sample
	// is compared with it, not with the previous one, so that memory
	// growing by small steps is still shown once it grew by a tenth.
	shownTree *leakguard.TreeSample
}

type restartPolicy struct {
	max    int
	window time.Duration
	// backoff is the wait before the first automatic restart, doubled for
	// each further crash within window; 0 means defaultBackoff.
	backoff time.Duration
}

// defaultBackoff is the first restart's delay when the policy sets none.
const defaultBackoff = 250 * time.Millisecond

type readyResult struct {
	inst *instance.Instance
	port int
	err  error
}

type commandKind int

const (
	cmdStart commandKind = iota
	cmdStop
	cmdRestart
	cmdHandoffView // a copy of what a handoff needs of the running instance
	cmdToken       // the running instance's session token
	cmdDetach      // hand the running instance over: stop supervising, no teardown
)

type command struct {
	kind  commandKind
	reply chan commandResult
}

type commandResult struct {
	err   error
	view  handoff.View // cmdHandoffView only
	token string       // cmdToken only
}

func newSupervisor(spec runspec.Spec, params instance.Params, records *lockfile.Records, policy restartPolicy, lg leakguard.Config, log *slog.Logger, notify func(st model.BackendStatus, entered bool)) *Supervisor {
	log = log.With("backend", spec.Name)
	if policy.backoff <= 0 {
		policy.backoff = defaultBackoff
	}
	s := &Supervisor{
		spec:    spec,
		params:  params,
		records: records,
		log:     log,
		out:     params.Log,
		policy:  policy,
		guard:   leakguard.New(lg, log, func(line string) { params.Log.Add("launcher", line) }),
		clock:   leakguard.NewClock(lg.SampleInterval),
		notify:  notify,
		cmds:    make(chan command),
		done:    make(chan struct{}),
	}
	s.params.Spec = &s.spec
	s.st = model.BackendStatus{Name: spec.Name, Kind: spec.Kind, State: model.StateStopped, Command: spec.Command}
	return s
}

// Status returns a copy of the backend's current status.
func (s *Supervisor) Status() model.BackendStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.st
	st.Command = append([]string(nil), st.Command...)
	st.LogTail = append([]string(nil), st.LogTail...)
	return st
}

// update applies fn to the status under the lock and publishes the result;
// the notification says whether the backend just entered the state.
// A state change that the state machine forbids is logged and dropped.
func (s *Supervisor) update(to model.State, fn func(*model.BackendStatus)) {
	s.mu.Lock()
	entered := to != s.st.State
	if entered {
		if err := model.CheckTransition(s.st.State, to); err != nil {
			s.mu.Unlock()
			s.log.Error("state machine", "err", err)
			return
		}
		s.log.Info("state", "state", to)
	}
	s.st.State = to
	if fn != nil {
		fn(&s.st)
	}
	st := s.st
	s.mu.Unlock()
	s.notify(st, entered)
}

// do sends a command to the run goroutine and waits for its answer.
func (s *Supervisor) do(ctx context.Context, kind commandKind) error {
	_, err := s.call(ctx, kind)
	return err
}

// token asks the run goroutine for the running instance's session token
// ("" when it has none, or runs none).
func (s *Supervisor) token(ctx context.Context) (string, error) {
	r, err := s.call(ctx, cmdToken)
	return r.token, err
}

// handoffView asks the run goroutine for a copy of what a handoff needs of
// the running, ready backend.
func (s *Supervisor) handoffView(ctx context.Context) (handoff.View, error) {
	r, err := s.call(ctx, cmdHandoffView)
	return r.view, err
}

func (s *Supervisor) call(ctx context.Context, kind commandKind) (commandResult, error) {
	c := command{kind: kind, reply: make(chan commandResult, 1)}
	select {
	case s.cmds <- c:
	case <-s.done:
		return commandResult{}, fmt.Errorf("backend %s: supervisor has stopped", s.spec.Name)
	case <-ctx.Done():
		return commandResult{}, ctx.Err()
	}
	select {
	case r := <-c.reply:
		return r, r.err
	case <-s.done:
		return commandResult{}, fmt.Errorf("backend %s: supervisor has stopped", s.spec.Name)
	}
}

// Start starts a stopped or failed backend (a no-op when it runs).
func (s *Supervisor) Start(ctx context.Context) error { return s.do(ctx, cmdStart) }

// Stop tears the backend down and leaves it stopped.
func (s *Supervisor) Stop(ctx context.Context) error { return s.do(ctx, cmdStop) }

// Restart tears the backend down and starts it again, forgetting earlier
// crashes (this is also "Try again" after a failure).
func (s *Supervisor) Restart(ctx context.Context) error { return s.do(ctx, cmdRestart) }

// Done is closed when the supervisor has stopped its backend and returned.
func (s *Supervisor) Done() <-chan struct{} { return s.done }

// run is the supervisor's goroutine. It returns when ctx ends, after the
// backend is torn down and its record removed (or at once after a detach).
// It starts by adopting inst when a previous launcher handed one over, else
// by launching a backend when autostart is set.
func (s *Supervisor) run(ctx context.Context, autostart bool, inst *instance.Instance, prev model.BackendStatus) {
	defer close(s.done)
	switch {
	case inst != nil:
		s.adopt(inst, prev)
	case autostart:
		s.launch(ctx)
	}
	defer s.clock.Stop()
	defer s.leaveExternal()
	for {
		var exited, reported <-chan struct{}
		var timerC, externalC, sampleC <-chan time.Time
		if s.ext != nil {
			externalC = s.ext.Ticker.C
		}
		s.clock.Run(s.cur != nil)
		sampleC = s.clock.C()
		if s.cur != nil {
			exited = s.cur.Exited()
			if !s.curReported {
				reported = s.cur.BackendKnown()
			}
		}
		if s.timer != nil {
			timerC = s.timer.C
		}
		select {
		case <-ctx.Done():
			s.halt()
			s.update(model.StateStopped, forgetRun)
			return
		case r := <-s.readyCh:
			s.onReady(r)
			s.sample(ctx) // the first look at the tree, not one interval later
		case <-reported:
			s.onReported()
		case <-exited:
			s.onExit(ctx)
		case <-externalC:
			s.checkExternal(ctx)
		case <-timerC:
			s.timer = nil
			s.launch(ctx)
		case now := <-sampleC:
			s.sample(ctx)
			s.clock.Ticked(now)
		case c := <-s.cmds:
			c.reply <- s.handle(ctx, c.kind)
			if c.kind == cmdDetach {
				return // the instance belongs to the next launcher now
			}
		}
	}
}

func (s *Supervisor) handle(ctx context.Context, kind commandKind) commandResult {
	switch kind {
	case cmdStop:
		s.halt()
		s.update(model.StateStopped, func(st *model.BackendStatus) {
			forgetRun(st)
			st.LastError = ""
		})
	case cmdStart:
		if s.cur != nil || s.timer != nil || s.ext != nil {
			return commandResult{}
		}
		s.crashes, s.startTimeouts = nil, 0
		s.launch(ctx)
	case cmdRestart:
		running := s.cur != nil
		s.halt()
		s.crashes, s.startTimeouts = nil, 0
		if running {
			s.update(model.StateStarting, func(st *model.BackendStatus) { st.Restarts++; st.LastRestart = "restarted on request" })
		}
		s.launch(ctx)
	case cmdHandoffView:
		st := s.Status()
		if s.ext != nil {
			return commandResult{view: handoff.View{Status: st, External: true}} // nothing of ours to hand over
		}
		if s.cur == nil || st.State != model.StateReady || !s.curReported {
			return commandResult{err: fmt.Errorf("backend %s is %s, not ready: try the handoff again when it is", s.spec.Name, st.State)}
		}
		i := s.cur
		lifeline, stdout, stderr := i.HandoffFiles()
		return commandResult{view: handoff.View{Status: st, ViaShim: i.ViaShim(), Nonce: i.Nonce(), Argv: i.Argv(),
			Shim: i.Leader(), Backend: i.BackendID(), Token: i.Token(), Cgroup: i.TreeCgroup(), Lifeline: lifeline, Stdout: stdout, Stderr: stderr}}
	case cmdToken:
		if s.cur != nil {
			return commandResult{token: s.cur.Token()}
		}
	case cmdDetach:
		s.detach()
	default:
		return commandResult{err: fmt.Errorf("backend: unknown command %d", kind)}
	}
	return commandResult{}
}

// detach stops supervising without touching the backend: a new launcher
// has taken it over. Its record now names the new owner.
func (s *Supervisor) detach() {
	if s.timer != nil {
		s.timer.Stop()
		s.timer = nil
	}
	if s.stopReady != nil {
		s.stopReady()
		s.stopReady = nil
	}
	if s.cur != nil {
		s.cur.Detach()
		s.cur = nil
	}
}

// launch spawns a new instance and starts watching for its readiness.
func (s *Supervisor) launch(ctx context.Context) {
	inst, err := instance.Spawn(s.params)
	if err != nil {
		s.out.Add("launcher", err.Error())
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
			s.fail(fmt.Sprintf("cannot start %q: %v", s.spec.Command[0], err))
			return
		}
		s.onCrash(err.Error())
		return
	}
	s.cur, s.curCreated, s.curPort, s.curReported, s.curDesc = inst, time.Now(), 0, !inst.ViaShim(), nil
	s.guard.Reset()
	if err := s.writeRecord(inst); err != nil {
		// Without a record we could not prove this backend is ours after a
		// crash; do not run it. Closing the lifeline first lets a shim still
		// at its start barrier exit at once.
		inst.CloseShimPipes()
		_ = inst.Stop()
		s.cur = nil
		s.fail(fmt.Sprintf("cannot write the ownership record: %v", err))
		return
	}
	if err := inst.Release(); err != nil {
		s.out.Add("launcher", err.Error()) // the shim saw EOF and exits: handled as a crash
	}
	now := time.Now()
	s.update(model.StateStarting, func(st *model.BackendStatus) {
		st.PID, st.ShimPID, st.Port, st.URL, st.PageURL = inst.BackendPID(), 0, 0, "", ""
		if inst.ViaShim() {
			st.ShimPID = inst.Leader().PID
		}
		st.Nonce, st.Started, st.ReadyAt, st.LogTail, st.Tree = inst.Nonce(), &now, nil, nil, nil
		setContainment(st, inst)
	})
	readyCtx, cancel := context.WithCancel(ctx)
	ch := make(chan readyResult, 1) // never blocks the sender, even after we stop listening
	s.readyCh, s.stopReady = ch, cancel
	go func() {
		port, err := inst.AwaitReady(readyCtx)
		ch <- readyResult{inst: inst, port: port, err: err}
	}()
	s.log.Info("started", "pid", inst.Leader().PID, "argv", inst.Argv())
}

func (s *Supervisor) onReady(r readyResult) {
	s.readyCh = nil
	if r.inst != s.cur {
		return // a result about an instance we already stopped
	}
	if r.err != nil {
		if errors.Is(r.err, instance.ErrExitedEarly) || errors.Is(r.err, context.Canceled) {
			return // the exit is handled where it is noticed
		}
		s.out.Add("launcher", "not ready: "+r.err.Error())
		s.halt()
		s.startTimeouts++
		if s.startTimeouts > s.policy.max {
			s.fail(fmt.Sprintf("%s; it did not become ready in %d starts in a row, giving up", r.err, s.startTimeouts))
			return
		}
		s.onCrash(r.err.Error())
		return
	}
	s.startTimeouts = 0
	s.curPort = r.port
	if err := s.writeRecord(r.inst); err != nil {
		s.log.Warn("update record with port", "err", err)
	}
	url := "http://" + net.JoinHostPort(reap.ProbeHost(reap.ParseShape(s.spec.Command).Host), strconv.Itoa(r.port))
	now := time.Now()
	s.update(model.StateReady, func(st *model.BackendStatus) {
		st.PID, st.Port, st.URL, st.ReadyAt, st.LastError = r.inst.BackendPID(), r.port, url, &now, ""
		st.PageURL = ""
		if s.spec.ServesPage() {
			st.PageURL = url + "/"
		}
	})
	s.clock.Ready(now)
}

// sample looks at the running backend's tree, applies the leak guard, and
// publishes the sample; a restart policy that fires restarts the backend.
func (s *Supervisor) sample(ctx context.Context) {
	if s.clock.Off() || s.cur == nil || s.cur.BackendPID() == 0 {
		return
	}
	ts, err := s.guard.Sample(s.cur.BackendID(), s.cur.TreeCgroup())
	if err != nil {
		return // it is exiting: the exit is handled where it is seen
	}
	s.cur.Track(ts.Processes)
	s.recordDescendants(ts)
	restart := s.guard.Check(ts, s.spec.Grace)
	s.publishTree(ts)
	if restart != "" {
		s.log.Warn("leak guard restarts the backend", "reason", restart)
		s.out.Add("launcher", restart)
		s.halt()
		s.update(model.StateStarting, func(st *model.BackendStatus) { st.Restarts++; st.LastRestart = restart })
		s.launch(ctx)
	}
}

// publishTree keeps the sample in the status, and tells the window only
// when something a person would notice changed: the processes, the
// warnings, or the memory by more than a tenth. At rest, nothing is sent:
// the status (and `status --json`) still has each sample, its SampledAt
// saying when the tree was last checked and its ChangedAt since when it
// looks the same, so the page can say "unchanged since" honestly.
func (s *Supervisor) publishTree(ts *leakguard.TreeSample) {
	s.mu.Lock()
	if s.st.Tree == nil {
		s.shownTree = nil // the window was told there is no tree
	}
	changed := treeChanged(s.shownTree, ts)
	ts.ChangedAt = ts.SampledAt
	if !changed {
		ts.ChangedAt = s.shownTree.ChangedAt
		s.st.Tree = ts
	}
	s.mu.Unlock()
	if changed {
		s.shownTree = ts
		s.update(s.Status().State, func(st *model.BackendStatus) { st.Tree = ts })
	}
}

func treeChanged(old, now *leakguard.TreeSample) bool {
	if old == nil || now == nil {
		return old != now
	}
	if old.Count != now.Count || len(old.Warnings) != len(now.Warnings) {
		return true
	}
	for i := range old.Processes {
		if old.Processes[i].PID != now.Processes[i].PID {
			return true
		}
	}
	for i := range old.Warnings {
		if old.Warnings[i] != now.Warnings[i] {
			return true
		}
	}
	diff := now.RSSBytes - old.RSSBytes
	return diff*10 > old.RSSBytes || -diff*10 > old.RSSBytes
}

// recordDescendants keeps the record's list of descendants (and the
// reclaimer's) in step with the tree, writing only when it changed.
func (s *Supervisor) recordDescendants(ts *leakguard.TreeSample) {
	var ids []proc.Identity
	for _, p := range ts.Processes[1:] {
		if len(ids) == lockfile.MaxDescendants {
			break
		}
		id := p.Identity()
		id.BootID = proc.BootID()
		ids = append(ids, id)
	}
	if s.params.Reclaimer != nil {
		s.params.Reclaimer.Know(s.cur.Nonce(), ids)
	}
	if slices.Equal(ids, s.curDesc) {
		return
	}
	s.curDesc = ids
	if err := s.writeRecord(s.cur); err != nil {
		s.log.Warn("update record with descendants", "err", err)
	}
}

// adopt takes over a running instance from the previous launcher: it is
// ready, its record already names us.
func (s *Supervisor) adopt(inst *instance.Instance, prev model.BackendStatus) {
	s.cur, s.curCreated, s.curPort, s.curReported, s.curDesc = inst, time.Now(), prev.Port, true, nil
	s.guard.Reset()
	now := time.Now()
	s.update(model.StateStarting, nil)
	s.update(model.StateReady, func(st *model.BackendStatus) {
		st.PID, st.Port, st.URL, st.PageURL, st.Restarts, st.Crashes = inst.BackendID().PID, prev.Port, prev.URL, prev.PageURL, prev.Restarts, prev.Crashes
		st.LastRestart, st.Nonce, st.Started, st.ReadyAt = prev.LastRestart, inst.Nonce(), prev.Started, &now
		if prev.ReadyAt != nil { // the same process, ready all along: its uptime goes on
			st.ReadyAt = prev.ReadyAt
		}
		if inst.ViaShim() {
			st.ShimPID = inst.Leader().PID
		}
		setContainment(st, inst)
	})
	s.log.Info("adopted from the previous launcher", "pid", inst.BackendID().PID, "port", prev.Port)
}

// onReported records the backend's identity once the shim has told us.
func (s *Supervisor) onReported() {
	s.curReported = true
	if err := s.writeRecord(s.cur); err != nil {
		s.log.Warn("update record with backend identity", "err", err)
	}
	pid := s.cur.BackendPID()
	inst := s.cur
	s.update(s.Status().State, func(st *model.BackendStatus) { st.PID = pid; setContainment(st, inst) })
}

// setContainment shows what holds the instance's tree.
func setContainment(st *model.BackendStatus, inst *instance.Instance) {
	st.Containment, st.ContainmentReason = inst.Containment()
	st.Cgroup = inst.TreeCgroup()
}

// onCrash handles an exit nobody asked for (or a start that failed): restart
// with backoff while the policy allows, else give up visibly.
func (s *Supervisor) onCrash(reason string) {
	if s.cur != nil {
		s.finish(s.cur)
		s.cur = nil
	}
	s.log.Warn("backend stopped unexpectedly", "reason", reason)
	s.out.Add("launcher", reason)
	now := time.Now()
	kept := s.crashes[:0]
	for _, t := range s.crashes {
		if now.Sub(t) < s.policy.window {
			kept = append(kept, t)
		}
	}
	s.crashes = kept
	if len(s.crashes) >= s.policy.max {
		s.fail(fmt.Sprintf("%s; restarted %d times within %s, giving up", reason, len(s.crashes), human.Duration(s.policy.window)))
		return
	}
	s.crashes = append(s.crashes, now)
	backoff := s.policy.backoff << (len(s.crashes) - 1)
	s.timer = time.NewTimer(backoff)
	s.update(model.StateRestarting, func(st *model.BackendStatus) {
		st.Restarts++
		st.Crashes++
		forgetRun(st)
		st.LastError, st.LastRestart = reason, reason
	})
}

func (s *Supervisor) fail(reason string) {
	s.log.Error("backend failed", "reason", reason)
	s.update(model.StateFailed, func(st *model.BackendStatus) {
		forgetRun(st)
		st.LastError = reason
		st.LogTail = s.out.Tail(20)
	})
}

// forgetRun clears what described the run that ended: its PIDs, its
// address (nothing must offer to open or copy a dead one), its tree and
// what held it.
func forgetRun(st *model.BackendStatus) {
	st.PID, st.ShimPID, st.Port, st.URL, st.PageURL = 0, 0, 0, "", ""
	st.Containment, st.ContainmentReason, st.Cgroup = "", "", ""
	st.Tree = nil
}

// halt stops whatever runs or is scheduled, synchronously. An attached
// backend is only let go of: it is not ours to stop.
func (s *Supervisor) halt() {
	s.leaveExternal()
	if s.timer != nil {
		s.timer.Stop()
		s.timer = nil
	}
	if s.stopReady != nil {
		s.stopReady()
		s.stopReady = nil
	}
	s.readyCh = nil
	if s.cur == nil {
		return
	}
	if err := s.cur.Stop(); err != nil {
		s.log.Error("stop", "err", err)
	}
	s.finish(s.cur)
	s.cur = nil
}

// finish removes the record of an instance whose tree is gone. If the tree
// could not be confirmed gone, the record stays: it is the evidence the next
// boot's reaper needs.
func (s *Supervisor) finish(inst *instance.Instance) {
	select {
	case <-inst.Exited():
	default:
		return
	}
	if inst.CgroupPopulated() {
		s.log.Error("the backend's cgroup still holds processes after SIGKILL; its record stays for the next boot's reap", "cgroup", inst.TreeCgroup())
		return
	}
	if err := s.records.Remove(inst.Nonce()); err != nil {
		s.log.Error("remove record", "err", err)
	}
}

func (s *Supervisor) writeRecord(inst *instance.Instance) error {
	leader := inst.Leader()
	leader.BootID = proc.BootID()
	r := &lockfile.Record{
		Schema:      lockfile.RecordSchema,
		Name:        s.spec.Name,
		Nonce:       inst.Nonce(),
		BootID:      proc.BootID(),
		PGID:        instance.GroupOf(leader.PID),
		Argv:        inst.Argv(),
		Port:        s.curPort,
		Descendants: s.curDesc,
		Profile:     s.spec.Profile,
		Owner:       lockfile.Owner{Nonce: s.params.OwnerNonce, PID: s.params.Owner.PID, Start: s.params.Owner.Start},
		Created:     s.curCreated.UTC(),
		Cgroup:      inst.TreeCgroup(),
	}
	if inst.ViaShim() {
		r.Shim = &leader
		if pid := inst.BackendPID(); pid != 0 {
			b := inst.BackendID()
			b.BootID = proc.BootID()
			r.Backend = &b
		}
	} else {
		r.Backend = &leader
	}
	return s.records.Write(r)
}
