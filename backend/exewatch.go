package backend

import (
	"context"
	"errors"
	"time"

	"hermes-desktop/backend/handoffwire"
	"hermes-desktop/backend/instance"
	"hermes-desktop/backend/model"
)

// A package upgrade (dpkg, an installer) can replace our executable under
// the running app. The launcher notices and offers "Restart to apply": an
// adopt handoff to the new file, so the backends keep running.

// exeWatch is the state of the watch on our own executable.
type exeWatch struct {
	stamp   instance.ExeStamp // the executable as we started from it
	changed chan struct{}     // closed once it changed on disk
	stop    func()            // ends the watch goroutine and waits for it
}

// watchExecutable starts watching l.cfg.Self. The goroutine it starts is
// owned by the launcher and ended by Shutdown.
func (l *Launcher) watchExecutable() {
	w := &exeWatch{stamp: instance.StampExecutable(l.cfg.Self), changed: make(chan struct{})}
	if w.stamp.Path() == "" {
		return // not a file we can stat: nothing to watch
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	w.stop = func() { cancel(); <-done }
	l.exe = w
	go func() {
		defer close(done)
		for {
			if err := waitReplaced(ctx, w.stamp); err != nil {
				l.cfg.Logger.Debug("not watching the executable", "err", err)
				return
			}
			// Our own self-update swapping the file is not a package
			// upgrade: it hands over, or puts the old file back.
			if !l.upd.swapping.Load() {
				break
			}
		}
		close(w.changed) // status says so (instance.restart_to_apply): the window shows its banner
		l.events.Publish(model.Event{Kind: model.EventStatus})
		l.cfg.Logger.Info("the executable was replaced on disk", "path", w.stamp.Path())
	}()
}

// ExecutableChanged reports whether our executable was replaced since we
// started.
func (l *Launcher) ExecutableChanged() bool {
	if l.exe == nil {
		return false
	}
	select {
	case <-l.exe.changed:
		return true
	default:
		return false
	}
}

// RestartToApply hands this instance over to the new executable on disk in
// adopt mode: the backends keep their processes and ports. Once the new
// instance serves, this one is handed over (HandedOff closes).
func (l *Launcher) RestartToApply(ctx context.Context) (*handoffwire.Result, error) {
	res, err := l.Handoff(ctx, handoffwire.Args{Mode: handoffwire.ModeAdopt, TimeoutNS: int64(2 * time.Minute)})
	var committed errCommitted
	if err == nil || errors.As(err, &committed) {
		l.finishHandoff()
	}
	return res, err
}

// RestartSelf hands this instance over to a new run of its own executable,
// which reads the settings saved since this one started. With keepBackends
// the backends keep running (an adopt handoff, where the platform has one);
// without, they are stopped first and the new instance starts them anew, as
// a setting given to a backend as it starts (its grace period, its command)
// needs. Once the new instance serves, this one is handed over (HandedOff
// closes).
func (l *Launcher) RestartSelf(ctx context.Context, keepBackends bool) (*handoffwire.Result, error) {
	mode := handoffwire.ModeRestart
	if keepBackends {
		mode = updateHandoffMode() // adopt where the platform can hand backends over
	}
	res, err := l.Handoff(ctx, handoffwire.Args{To: l.cfg.Self, Mode: mode, TimeoutNS: int64(2 * time.Minute)})
	var committed errCommitted
	if err == nil || errors.As(err, &committed) {
		l.finishHandoff()
	}
	return res, err
}
