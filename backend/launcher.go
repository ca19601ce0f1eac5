package backend

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"hermes-desktop/backend/control"
	"hermes-desktop/backend/instance"
	"hermes-desktop/backend/leakguard"
	"hermes-desktop/backend/logs"
	"hermes-desktop/backend/model"
	"hermes-desktop/backend/reap"
	"hermes-desktop/backend/reclaim"
	"hermes-desktop/backend/selfupdate"
	"hermes-desktop/internal/proc"
	"hermes-desktop/lockfile"
)

// ErrAlreadyRunning means another launcher holds the state dir's
// single-instance lock.
var ErrAlreadyRunning = errors.New("backend: another hermes-desktop instance is running")

// Launcher is one running instance: it holds the single-instance lock, its
// owner lock and the control socket, and supervises the backends.
type Launcher struct {
	cfg     Config
	self    proc.Identity
	nonce   string
	started time.Time

	instLock  *lockfile.Lock
	ownerLock *lockfile.Lock
	records   *lockfile.Records
	ctl       *control.Server
	events    model.Broker
	logsMu    sync.Mutex // guards logs
	logs      map[string]*logs.Log
	supsMu    sync.Mutex    // guards sups, supCtx and supCancel
	sups      []*Supervisor // in the order the user sees them
	supCtx    context.Context

	// adopted are the backends a predecessor handed over (adopt mode).
	adopted map[string]*adoptedBackend
	// handoffMu is held through a handoff: one at a time.
	handoffMu sync.Mutex
	// successor is the instance a handoff in adopt mode is waiting for.
	successor atomic.Pointer[successor]
	handedOff chan struct{} // closed once a successor owns everything
	handOnce  sync.Once

	focus atomic.Pointer[func()] // set by the GUI

	upd *selfupdate.Updater // the self-update and the watch on our executable

	noticeMu sync.Mutex // guards notices
	notices  []string

	// contain is how backends' trees are held, decided in Open.
	contain *instance.Plan

	reclaimer       *reclaim.Reclaimer
	reclaimerCancel context.CancelFunc
	reclaimerDone   chan struct{}
	// orphansCancel ends proc.ReapOrphans, the one loop that reaps what
	// is handed to us and nobody here waits for; orphansDone closes after.
	orphansCancel context.CancelFunc
	orphansDone   chan struct{}

	reapRun  sync.Mutex // held through a reap: one at a time
	reapMu   sync.Mutex // guards bootReap and lastReap
	bootReap *reap.Report
	lastReap *reap.Report

	supCancel    context.CancelFunc
	ctlCtx       context.Context
	ctlCancel    context.CancelFunc
	ctlWG        sync.WaitGroup // the control server's goroutines
	stopOnce     sync.Once
	stopReq      chan struct{} // closed when someone asks the instance to stop
	backendsGone chan struct{} // closed when every backend is torn down
	shutdownOnce sync.Once
	shutdownErr  error
}

// Open claims the state dir: checks it, takes the single-instance lock
// (ErrAlreadyRunning if taken), creates this instance's owner lock and
// listens on the control socket. Nothing is spawned yet. A successor
// started by a handoff instead waits for the lock (restart mode) or adopts
// the running backends (adopt mode, cfg.AdoptFrom).
func Open(cfg Config) (_ *Launcher, err error) {
	if err := cfg.applyDefaults(); err != nil {
		return nil, err
	}
	if err := lockfile.EnsureDir(cfg.StateDir); err != nil {
		return nil, err
	}
	if err := closeOnExecInherited(); err != nil {
		cfg.Logger.Warn("could not mark inherited fds close-on-exec", "err", err)
	}
	l := &Launcher{cfg: cfg, started: time.Now(), stopReq: make(chan struct{}), backendsGone: make(chan struct{}), handedOff: make(chan struct{})}
	defer func() {
		if err != nil {
			l.release()
		}
	}()
	if l.self, err = proc.Self(); err != nil {
		return nil, fmt.Errorf("backend: identify self: %w", err)
	}
	if l.nonce, err = lockfile.NewNonce(); err != nil {
		return nil, err
	}
	if l.records, err = lockfile.OpenRecords(cfg.StateDir); err != nil {
		return nil, err
	}
	l.reclaimer = reclaim.New(l.self.PID, DefaultGrace, l.nonce, cfg.Logger)
	l.upd = selfupdate.New(cfg.selfUpdate(l.self), updateHost{l})
	l.contain = instance.PlanContainment(cfg.Containment)
	cfg.Logger.Info("containment", "kind", l.contain.Kind(), "reason", l.contain.Reason())
	if cfg.AdoptFrom != nil {
		err = l.takeOver(cfg.AdoptFrom)
	} else {
		err = l.claim()
	}
	if err != nil {
		return nil, err
	}
	if l.ctl, err = control.Listen(cfg.StateDir, cfg.Logger); err != nil {
		return nil, err
	}
	l.notices = append(l.notices, cfg.Notices...)
	return l, nil
}

// claim takes the single-instance lock (waiting for a predecessor that is
// handing over, when told to) and this instance's owner lock.
func (l *Launcher) claim() (err error) {
	if l.cfg.HandoffWait > 0 {
		ctx, cancel := context.WithTimeout(context.Background(), l.cfg.HandoffWait)
		defer cancel()
		l.instLock, err = lockfile.AcquireWait(ctx, filepath.Join(l.cfg.StateDir, lockfile.InstanceLockName))
	} else {
		l.instLock, err = lockfile.AcquireInstance(l.cfg.StateDir)
	}
	if errors.Is(err, lockfile.ErrHeld) {
		return fmt.Errorf("%w (state dir %s)", ErrAlreadyRunning, l.cfg.StateDir)
	}
	if err != nil {
		return err
	}
	l.ownerLock, err = lockfile.AcquireOwner(l.cfg.StateDir, l.nonce)
	return err
}

// backendLog returns (creating it on first use) the log of a backend.
func (l *Launcher) backendLog(name string) *logs.Log {
	l.logsMu.Lock()
	defer l.logsMu.Unlock()
	if l.logs == nil {
		l.logs = map[string]*logs.Log{}
	}
	if lg := l.logs[name]; lg != nil {
		return lg
	}
	logDir := filepath.Join(l.cfg.StateDir, "logs")
	_ = os.MkdirAll(logDir, 0o700)
	lg := logs.New(name, filepath.Join(logDir, name+".log"), func(line logs.Line) {
		l.events.Publish(model.Event{Kind: model.EventLog, Log: &line})
	})
	l.logs[name] = lg
	return lg
}

// Start serves the control socket, runs the boot reap (before any spawn, so
// nothing it finds can be ours) and starts every backend. It returns once
// the reap is done; the backends come up in the background.
func (l *Launcher) Start() {
	// The supervisors exist before the socket answers, so every request
	// sees the full, fixed list; they start running after the boot reap.
	l.supsMu.Lock()
	for _, spec := range l.cfg.Backends {
		l.sups = append(l.sups, l.newSupervisor(spec))
	}
	l.supsMu.Unlock()
	ctlCtx, ctlCancel := context.WithCancel(context.Background())
	l.ctlCtx, l.ctlCancel = ctlCtx, ctlCancel
	l.serveControl()
	l.upd.Start()
	if err := proc.SetChildSubreaper(true); err != nil {
		l.cfg.Logger.Debug("launcher is not a subreaper", "err", err)
	}
	orphansCtx, orphansCancel := context.WithCancel(context.Background())
	l.orphansCancel, l.orphansDone = orphansCancel, make(chan struct{})
	go func() {
		defer close(l.orphansDone)
		proc.ReapOrphans(orphansCtx, l.cfg.Logger)
	}()
	reclaimCtx, reclaimCancel := context.WithCancel(context.Background())
	l.reclaimerCancel, l.reclaimerDone = reclaimCancel, make(chan struct{})
	go func() {
		defer close(l.reclaimerDone)
		l.reclaimer.Run(reclaimCtx)
	}()
	if !l.cfg.NoBootReap {
		l.runBootReap()
	}
	if msg, err := leakguard.ApplyNofileFloor(l.cfg.LeakGuard.NofileSoftLimit); err != nil {
		l.cfg.Logger.Warn("open-file floor not applied", "err", err)
	} else if msg != "" {
		l.cfg.Logger.Info(msg)
	}
	supCtx, supCancel := context.WithCancel(context.Background())
	l.supsMu.Lock()
	l.supCtx, l.supCancel = supCtx, supCancel
	for _, sup := range l.sups {
		a := l.adopted[sup.spec.Name]
		l.runSupervisor(sup, a.instance(), a.status())
	}
	l.supsMu.Unlock()
}

// onStatus publishes a status change and announces entering readiness and
// failure on the announce writer (the headless run's stdout).
func (l *Launcher) onStatus(st model.BackendStatus, entered bool) {
	l.events.Publish(model.Event{Kind: model.EventStatus, Backend: &st})
	if !entered {
		return
	}
	switch st.State {
	case model.StateReady:
		fmt.Fprintf(l.cfg.Announce, "backend %s ready pid=%d port=%d url=%s\n", st.Name, st.PID, st.Port, st.URL)
	case model.StateFailed:
		fmt.Fprintf(l.cfg.Announce, "backend %s failed: %s\n", st.Name, st.LastError)
	}
}

// StopRequested is closed when a stop was asked for (control socket, Quit).
func (l *Launcher) StopRequested() <-chan struct{} { return l.stopReq }

// RequestStop asks the owner of the launcher (main) to shut it down.
func (l *Launcher) RequestStop() { l.stopOnce.Do(func() { close(l.stopReq) }) }

// Shutdown tears every backend down, waits until their trees are gone and
// records removed, then closes the control socket and releases the locks.
// It is idempotent; only the first call does the work.
func (l *Launcher) Shutdown() error {
	l.shutdownOnce.Do(func() {
		l.RequestStop()
		l.supsMu.Lock()
		if l.supCancel != nil {
			l.supCancel()
		}
		l.supsMu.Unlock()
		for _, s := range l.supervisors() {
			<-s.Done()
		}
		if l.reclaimerCancel != nil {
			l.reclaimerCancel() // it finishes off the orphans it holds
			<-l.reclaimerDone
			_ = proc.SetChildSubreaper(false)
		}
		if l.orphansCancel != nil {
			l.orphansCancel() // after the reclaimer: it reaps what that one stopped
			<-l.orphansDone
		}
		close(l.backendsGone)
		l.upd.Stop()
		if l.ctlCancel != nil {
			l.ctlCancel()
		}
		l.ctlWG.Wait()
		l.shutdownErr = l.release()
		l.logsMu.Lock()
		for _, lg := range l.logs {
			lg.Close()
		}
		l.logsMu.Unlock()
	})
	return l.shutdownErr
}

// release closes the socket and drops the locks (the lock files stay).
func (l *Launcher) release() error {
	var errs []error
	if l.ctl != nil {
		errs = append(errs, l.ctl.Close())
	}
	errs = append(errs, l.ownerLock.Release(), l.instLock.Release())
	l.contain.Close()
	return errors.Join(errs...)
}

// serveControl answers the control socket in a goroutine the launcher
// owns (ended by ctlCancel, awaited in Shutdown).
func (l *Launcher) serveControl() {
	srv := l.ctl
	l.ctlWG.Add(1)
	go func() {
		defer l.ctlWG.Done()
		srv.Serve(l.ctlCtx, control.HandlerFunc(l.handleControl))
	}()
}

// AddNotice records something the user should see (a settings file set
// aside, say); status carries it.
func (l *Launcher) AddNotice(msg string) {
	l.noticeMu.Lock()
	defer l.noticeMu.Unlock()
	l.notices = append(l.notices, msg)
}

// SetFocus registers what a second launch should do (bring the window up).
func (l *Launcher) SetFocus(fn func()) { l.focus.Store(&fn) }

// Subscribe returns a subscription to status and log events.
func (l *Launcher) Subscribe() *model.Subscription { return l.events.Subscribe(256) }

// StateDir returns the instance's state directory.
func (l *Launcher) StateDir() string { return l.cfg.StateDir }

// supervisor finds a backend by name; "" means the first.
func (l *Launcher) supervisor(name string) (*Supervisor, error) {
	sups := l.supervisors()
	if name == "" && len(sups) > 0 {
		return sups[0], nil
	}
	var names []string
	for _, s := range sups {
		if s.spec.Name == name {
			return s, nil
		}
		names = append(names, s.spec.Name)
	}
	return nil, fmt.Errorf("%w named %q (backends: %s)", control.ErrNoSuchBackend, name, strings.Join(names, ", "))
}

// Restart restarts the named backend, or all backends when name is "".
func (l *Launcher) Restart(ctx context.Context, name string) error {
	if name != "" {
		s, err := l.supervisor(name)
		if err != nil {
			return err
		}
		return s.Restart(ctx)
	}
	var errs []error
	for _, s := range l.supervisors() {
		errs = append(errs, s.Restart(ctx))
	}
	return errors.Join(errs...)
}

// StartBackend starts a stopped or failed backend, or every one when name
// is "".
func (l *Launcher) StartBackend(ctx context.Context, name string) error {
	if name == "" {
		var errs []error
		for _, s := range l.supervisors() {
			errs = append(errs, s.Start(ctx))
		}
		return errors.Join(errs...)
	}
	s, err := l.supervisor(name)
	if err != nil {
		return err
	}
	return s.Start(ctx)
}

// StopBackend stops one backend and leaves it stopped.
func (l *Launcher) StopBackend(ctx context.Context, name string) error {
	s, err := l.supervisor(name)
	if err != nil {
		return err
	}
	return s.Stop(ctx)
}

// Logs returns up to max lines of a backend's output after seq.
func (l *Launcher) Logs(name string, after uint64, max int) ([]logs.Line, error) {
	s, err := l.supervisor(name)
	if err != nil {
		return nil, err
	}
	return l.backendLog(s.spec.Name).Since(after, max), nil
}
