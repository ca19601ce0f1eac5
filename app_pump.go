package main

import (
	"time"

	"hermes-desktop/backend/logs"
	"hermes-desktop/backend/model"
)

// attach connects the window and starts pushing events to it. The pump
// goroutine is owned by the App and ends in detach.
func (a *App) attach(ui windowUI) {
	a.attachMu.Lock()
	defer a.attachMu.Unlock()
	a.ui.Store(&ui)
	a.l.SetFocus(func() { a.showWindow() })
	if a.quitting.Load() {
		ui.Quit() // a quit (a stop over the socket) came before the window was up
	}
	a.pumpStop, a.pumpDone = make(chan struct{}), make(chan struct{})
	sub := a.l.Subscribe()
	go func() {
		defer close(a.pumpDone)
		defer sub.Close()
		a.pump(sub, a.pumpStop)
	}()
}

// detach stops the pump; the window is going away.
func (a *App) detach() {
	a.attachMu.Lock()
	defer a.attachMu.Unlock()
	if a.pumpStop != nil {
		close(a.pumpStop)
		<-a.pumpDone
		a.pumpStop = nil
	}
	a.ui.Store(nil)
}

// pumpInterval batches what the window is sent: one status and one block of
// log lines at most this often, however busy the backends are.
const pumpInterval = 250 * time.Millisecond

// pump forwards launcher events to the window in batches: "status" (the
// whole status, when anything changed), "logs" (new lines) and "reap". It
// wakes only for events: a batch timer is armed by the first event after a
// flush, so at rest nothing runs. While the window is hidden nothing is
// sent to it (the tray still gets the status) and a log line arms no
// timer; shown again, it gets one fresh status and fetches the log lines
// it missed itself.
func (a *App) pump(sub *model.Subscription, stop <-chan struct{}) {
	var flush *time.Timer // armed while something waits to be sent
	var flushC <-chan time.Time
	arm := func() {
		if flush == nil {
			flush = time.NewTimer(pumpInterval)
			flushC = flush.C
		}
	}
	defer func() {
		if flush != nil {
			flush.Stop()
		}
	}()
	statusDirty := true
	arm() // the first status
	var lines []logs.Line
	for {
		select {
		case <-stop:
			return
		case <-a.shown:
			statusDirty = true
			arm()
		case ev, ok := <-sub.C:
			if !ok {
				return
			}
			if a.take(ev, &statusDirty, &lines) {
				arm()
			}
		case <-flushC:
			flush, flushC = nil, nil
			a.flush(sub, statusDirty, lines)
			statusDirty, lines = false, nil
		}
	}
}

// take notes what ev leaves for the next batch, and reports whether it left
// anything. A reap report goes out at once. A hidden window is sent no log
// lines, so they leave nothing: no batch timer wakes for them.
func (a *App) take(ev model.Event, statusDirty *bool, lines *[]logs.Line) bool {
	switch ev.Kind {
	case model.EventStatus:
		*statusDirty = true
	case model.EventLog:
		if !a.visible.Load() {
			return false
		}
		*lines = append(*lines, *ev.Log)
	case model.EventReap:
		if a.visible.Load() {
			a.emit("reap", ev.Reap)
		}
		*statusDirty = true
	default:
		return false
	}
	return true
}

// flush sends one batch: the status when it changed, the new log lines.
func (a *App) flush(sub *model.Subscription, statusDirty bool, lines []logs.Line) {
	if sub.Lagged() {
		statusDirty = true // events were dropped: the full status catches up
	}
	visible := a.visible.Load()
	if statusDirty {
		st, _ := a.Status()
		if visible {
			a.emit("status", st)
		}
		if fn := a.onStatus.Load(); fn != nil {
			(*fn)(st)
		}
	}
	if len(lines) > 0 && visible {
		a.emit("logs", lines)
	}
}

// SetWindowVisible tells the App whether the window can be seen (the page
// reports visibilitychange: minimized, hidden to the tray, shown again).
// Hidden, the window is sent nothing; shown, it gets one fresh status.
func (a *App) SetWindowVisible(visible bool) error {
	if a.visible.Swap(visible) == visible || !visible {
		return nil
	}
	select {
	case a.shown <- struct{}{}:
	default:
	}
	return nil
}

func (a *App) emit(topic string, data any) {
	if ui := a.ui.Load(); ui != nil {
		(*ui).Emit(topic, data)
	}
}
