package backend

import (
	"errors"
	"fmt"
	"hermes-desktop/backend/remote"
	"hermes-desktop/backend/run"
	"log/slog"
	"slices"
	"sync"
	"time"

	"hermes-desktop/backend/handoff"
	"hermes-desktop/backend/instance"
	"hermes-desktop/backend/leakguard"
	"hermes-desktop/backend/model"
	"hermes-desktop/backend/reclaim"
	"hermes-desktop/backend/selfupdate"
	"hermes-desktop/backend/settings"
	"hermes-desktop/backend/supervisor"
	"hermes-desktop/lockfile"
	"hermes-desktop/platform/proc"
)

// ErrAlreadyRunning means another launcher holds the state dir's
// single-instance lock.
var ErrAlreadyRunning = errors.New("backend: another hermes-desktop instance is running")

// Launcher is one running instance: it holds the state dir (its locks and
// control socket), supervises the backends, keeps the notices and answers
// status. The handoff and the self-update are objects of their own that
// see it through an interface each (handoffs.go, updates.go).
type Launcher struct {
	// Set in Open and never changed: read from any goroutine.
	cfg     Config
	self    proc.Identity
	nonce   string
	started time.Time
	records *lockfile.Records
	contain *instance.Plan // how backends' trees are held
	remotes *remote.Hosts  // the hosts of remote backends, one connection each
	upd     *selfupdate.Updater
	handoff *handoff.Sender
	saved   *settings.Store // config.json: the window's, the CLI's and ours

	claim     *stateClaim     // the locks and the socket; guarded inside
	sups      supervisor.List // the backends' supervisors; guarded inside
	logs      backendLogs     // the backends' logs; guarded inside
	events    model.Broker    // safe for concurrent use
	subreaper *subreaper      // the loops that take in orphans; guarded inside
	reaps     reapHistory     // the reaps run, one at a time; guarded inside
	stop      stopping        // stop asked, backends gone, shutdown once
	notices   noticeList      // guarded inside
	pages     *Pages          // what a person asks to see; the focus the GUI sets

	// prep is what Open leaves to Prepare and Start: the lookup of the
	// core when Open did not do it (cfg.LocateCore), whose prepared is
	// closed once cfg.Core and cfg.Backends are final and the supervisors
	// exist, and the backends a predecessor handed over.
	prep *preparation
}

// Logger is the launcher's log, for what the app around it does.
func (l *Launcher) Logger() *slog.Logger { return l.cfg.Logger }

// Open claims the state dir: checks it, takes the single-instance lock
// (ErrAlreadyRunning if taken), creates this instance's owner lock and
// listens on the control socket. Nothing is spawned yet. A successor
// started by a handoff instead waits for the lock (restart mode) or adopts
// the running backends (adopt mode, cfg.AdoptFrom).
func Open(cfg Config) (_ *Launcher, err error) {
	// The defaults are filled into our copy, never the caller's.
	cfg.Backends = slices.Clone(cfg.Backends)
	prep := newPreparation(&cfg)
	if err := cfg.applyDefaults(); err != nil {
		return nil, err
	}
	if err := lockfile.EnsureDir(cfg.StateDir); err != nil {
		return nil, err
	}
	if err := closeOnExecInherited(); err != nil {
		cfg.Logger.Warn("could not mark inherited fds close-on-exec", "err", err)
	}
	l := &Launcher{cfg: cfg, started: time.Now(), stop: newStopping(), prep: prep}
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
	l.claim = &stateClaim{dir: cfg.StateDir, nonce: l.nonce, logger: cfg.Logger}
	l.saved = settings.NewStore(cfg.StateDir)
	l.logs = newBackendLogs(cfg.StateDir, &l.events)
	l.pages = &Pages{sups: &l.sups, nonce: l.nonce}
	l.subreaper = &subreaper{reclaimer: reclaim.New(l.self.PID, DefaultGrace, l.nonce, cfg.Logger)}
	l.upd = selfupdate.New(cfg.selfUpdate(l.self), updateHost{l})
	l.handoff = handoff.NewSender(cfg.handoff(l.self, l.nonce), handoffHost{l})
	l.contain = instance.PlanContainment(cfg.Containment)
	l.remotes = remote.NewHosts(cfg.Remote, cfg.Core, cfg.Version)
	if cfg.AdoptFrom != nil {
		err = l.receive()
	} else {
		err = l.claim.acquire(cfg.HandoffWait)
	}
	if err != nil {
		return nil, err
	}
	// Ours to say once the state dir is: a second launch says only that
	// one already runs.
	cfg.Logger.Info("containment", "kind", l.contain.Kind(), "reason", l.contain.Reason())
	if err = l.claim.listen(); err != nil {
		return nil, err
	}
	l.notices.add(cfg.Notices...)
	return l, nil
}

// receive is Open for an adopt-mode successor: the predecessor hands over
// its backends and the state dir.
func (l *Launcher) receive() error {
	got, err := handoff.Receive(l.cfg.AdoptFrom, handoff.Receiving{
		StateDir: l.cfg.StateDir, Self: l.self, Nonce: l.nonce, Records: l.records, Specs: l.cfg.Backends,
		Log: l.logs.of, Reclaimer: l.subreaper.reclaimer, LeakGuard: l.cfg.LeakGuard, LauncherJob: l.cfg.LauncherJob, Logger: l.cfg.Logger,
	})
	if err != nil {
		return err
	}
	l.claim.hold(got.InstLock, got.OwnerLock)
	l.prep.adopted, l.prep.remote = got.Backends, got.Remote
	return nil
}

// Prepare fixes what the launcher will run: it finds the core when Open
// left that to it (Config.LocateCore), resolves the backends' commands
// and makes their supervisors, so that Status lists them all. Start calls
// it; a caller may call it first, from another goroutine than the window's
// (lifecycle), to learn the core before anything starts. Call it once.
func (l *Launcher) Prepare() {
	l.prep.once.Do(func() {
		if l.prep.deferred() && l.prep.use(&l.cfg, l.prep.locate()) {
			l.remotes.SetSelf(l.cfg.Core)
		}
		for _, spec := range l.cfg.Backends {
			l.sups.Add(l.newSupervisor(spec))
		}
		close(l.prep.prepared)
	})
}

// Core is the executable the shims and the built-in backend run from; when
// Prepare finds it, once Prepare has.
func (l *Launcher) Core() string {
	l.prep.await()
	return l.cfg.Core
}

// Start serves the control socket, runs the boot reap (before any spawn, so
// nothing it finds can be ours) and starts every backend, after Prepare if
// the caller has not called it. It returns once the reap is done; the
// backends come up in the background.
func (l *Launcher) Start() {
	// The supervisors exist before the socket answers, so every request
	// sees the full, fixed list; they start running after the boot reap.
	l.Prepare()
	l.claim.serve(controlHandler{l})
	l.upd.Start()
	l.subreaper.start(l.cfg.Logger)
	if !l.cfg.NoBootReap {
		l.runBootReap()
	}
	if msg, err := leakguard.ApplyNofileFloor(l.cfg.LeakGuard.NofileSoftLimit); err != nil {
		l.cfg.Logger.Warn("open-file floor not applied", "err", err)
	} else if msg != "" {
		l.cfg.Logger.Info(msg)
	}
	l.sups.RunAll(func(sup *supervisor.Supervisor) (run.Process, model.BackendStatus) {
		a := l.prep.adopted[sup.Spec().Name]
		if inst := a.Instance(); inst != nil {
			return inst, a.Status()
		}
		if spec := sup.Spec(); spec.Host != "" && l.prep.remote[spec.Name] != nil {
			if p, prev, ok := claimHandedOver(l.remoteRunner(spec.Host, l.logs.of(spec.Name)), l.prep.remote[spec.Name], spec, l.cfg.Logger); ok {
				return p, prev
			}
		}
		return nil, a.Status() // no nil *Instance in a non-nil Process
	})
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
func (l *Launcher) StopRequested() <-chan struct{} { return l.stop.asked }

// RequestStop asks the owner of the launcher (main) to shut it down.
func (l *Launcher) RequestStop() { l.stop.ask() }

// Shutdown tears every backend down, waits until their trees are gone and
// records removed, then closes the control socket and releases the locks.
// It is idempotent; only the first call does the work.
func (l *Launcher) Shutdown() error {
	l.stop.shutdownOnce.Do(func() {
		l.RequestStop()
		l.sups.StopAll()
		l.remotes.Close() // after the backends: their channels go through it
		l.subreaper.stop()
		close(l.stop.backendsGone)
		l.upd.Stop()
		l.stop.err = l.release()
		l.logs.closeAll()
	})
	return l.stop.err
}

// release closes the socket and drops the locks (the lock files stay).
func (l *Launcher) release() error {
	var err error
	if l.claim != nil {
		err = l.claim.close()
	}
	l.contain.Close()
	return err
}

// AddNotice records something the user should see (a settings file set
// aside, say); status carries it.
func (l *Launcher) AddNotice(msg string) { l.notices.add(msg) }

// Subscribe returns a subscription to status and log events.
func (l *Launcher) Subscribe() *model.Subscription { return l.events.Subscribe(256) }

// StateDir returns the instance's state directory.
func (l *Launcher) StateDir() string { return l.cfg.StateDir }

// stopping is how the launcher ends: someone asks it to stop, its owner
// (main) shuts it down once, and the control socket's stop answers once the
// backends are gone. Its channels and Onces are safe from any goroutine.
type stopping struct {
	askOnce      sync.Once
	asked        chan struct{} // closed when someone asks the instance to stop
	backendsGone chan struct{} // closed when every backend is torn down
	shutdownOnce sync.Once
	err          error // Shutdown's result: written inside shutdownOnce
}

func newStopping() stopping {
	return stopping{asked: make(chan struct{}), backendsGone: make(chan struct{})}
}

// ask closes asked, once.
func (s *stopping) ask() { s.askOnce.Do(func() { close(s.asked) }) }

// noticeList is what the user should see once in status (a settings file
// set aside, say).
type noticeList struct {
	mu   sync.Mutex // guards list
	list []string
}

// add appends notices.
func (n *noticeList) add(msgs ...string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.list = append(n.list, msgs...)
}

// all is a copy of the notices.
func (n *noticeList) all() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.list...)
}
