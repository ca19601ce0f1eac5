package selfupdate

import (
	"context"
	"fmt"
	"time"

	"hermes-desktop/backend/control/protocol"
	"hermes-desktop/backend/instance"
	"hermes-desktop/contract/errkind"
)

// A package upgrade (dpkg, an installer) can replace our executable under
// the running app. The Updater notices and offers "Restart to apply": an
// adopt handoff to the new file, so the backends keep running.

// exeWatch is the state of the watch on our own executable. It is made in
// New and never replaced, so status may read it from any goroutine.
type exeWatch struct {
	stamp   instance.ExeStamp // the executable as we started from it
	changed chan struct{}     // closed once it changed on disk
}

// newExeWatch stamps exe; nil when it is not a file we can stat: nothing
// to watch.
func newExeWatch(exe string) *exeWatch {
	w := &exeWatch{stamp: instance.StampExecutable(exe), changed: make(chan struct{})}
	if w.stamp.Path() == "" {
		return nil
	}
	return w
}

// watchExecutable starts watching cfg.Exe. The goroutine it starts is
// owned by the Updater and ended by Stop (u.ctx).
func (u *Updater) watchExecutable() {
	w := u.exe
	if w == nil {
		return
	}
	u.bg.Add(1)
	go func() {
		defer u.bg.Done()
		for {
			if err := waitReplaced(u.ctx, w.stamp); err != nil {
				u.cfg.Logger.Debug("not watching the executable", "err", err)
				return
			}
			// Our own self-update swapping the file is not a package
			// upgrade: it hands over, or puts the old file back.
			if !u.swap.swapping.Load() {
				break
			}
		}
		close(w.changed) // status says so (instance.restart_to_apply): the window shows its banner
		u.launcher.PublishStatus()
		u.cfg.Logger.Info("the executable was replaced on disk", "path", w.stamp.Path())
	}()
}

// NewExecutable returns the path of our executable and true once a
// package upgrade replaced it on disk since we started ("Restart to
// apply"); "" and false until then.
func (u *Updater) NewExecutable() (string, bool) {
	if u.exe == nil {
		return "", false
	}
	select {
	case <-u.exe.changed:
		return u.exe.stamp.Path(), true
	default:
		return "", false
	}
}

// ApplyInstalled hands this instance over to the new executable a
// package upgrade put on disk ("Restart to apply"), in adopt mode: the
// backends keep their processes and ports. Once the new instance serves,
// the launcher is handed over (Launcher.HandedOver).
func (u *Updater) ApplyInstalled(ctx context.Context) error {
	exe, ok := u.NewExecutable()
	if !ok {
		return fmt.Errorf("%w: this instance's executable has not changed on disk: nothing to apply", errkind.ErrRefused)
	}
	succ, err := u.launcher.HandOff(ctx, protocol.HandoffArgs{To: exe, Mode: protocol.HandoffAdopt, TimeoutNS: int64(2 * time.Minute)})
	if succ != nil { // the new instance owns the backends, error or not
		u.launcher.HandedOver()
	}
	return err
}
