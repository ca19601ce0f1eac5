package main

import (
	"time"

	"hermes-desktop/backend/model"
	"hermes-desktop/contract/logs"
)

// attach connects the window and starts pushing events to it. The pump
// goroutine is owned by the shell and ends in detach.
func (w *shell) attach(ui windowUI) {
	w.attachMu.Lock()
	defer w.attachMu.Unlock()
	w.ui.Store(&ui)
	w.l.Pages().SetFocus(w.showWindow)
	if w.quitting.Load() {
		ui.Quit() // a quit (a stop over the socket) came before the window was up
	}
	w.pumpStop, w.pumpDone = make(chan struct{}), make(chan struct{})
	sub := w.l.Subscribe()
	go func() {
		defer close(w.pumpDone)
		defer sub.Close()
		w.pump(sub, w.pumpStop)
	}()
}

// detach stops the pump; the window is going away.
func (w *shell) detach() {
	w.attachMu.Lock()
	defer w.attachMu.Unlock()
	if w.pumpStop != nil {
		close(w.pumpStop)
		<-w.pumpDone
		w.pumpStop = nil
	}
	w.ui.Store(nil)
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
func (w *shell) pump(sub *model.Subscription, stop <-chan struct{}) {
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
		case <-w.shown:
			statusDirty = true
			arm()
		case ev, ok := <-sub.C:
			if !ok {
				return
			}
			if w.take(ev, &statusDirty, &lines) {
				arm()
			}
		case <-flushC:
			flush, flushC = nil, nil
			w.flush(sub, statusDirty, lines)
			statusDirty, lines = false, nil
		}
	}
}

// take notes what ev leaves for the next batch, and reports whether it left
// anything. A reap report goes out at once. A hidden window is sent no log
// lines, so they leave nothing: no batch timer wakes for them.
func (w *shell) take(ev model.Event, statusDirty *bool, lines *[]logs.Line) bool {
	switch ev.Kind {
	case model.EventStatus:
		*statusDirty = true
	case model.EventLog:
		if !w.visible.Load() {
			return false
		}
		*lines = append(*lines, *ev.Log)
	case model.EventReap:
		if w.visible.Load() {
			w.emit("reap", ev.Reap)
		}
		*statusDirty = true
	default:
		return false
	}
	return true
}

// flush sends one batch: the status when it changed, the new log lines.
func (w *shell) flush(sub *model.Subscription, statusDirty bool, lines []logs.Line) {
	if sub.Lagged() {
		statusDirty = true // events were dropped: the full status catches up
	}
	visible := w.visible.Load()
	if statusDirty {
		st := w.l.Status()
		if visible {
			w.emit("status", st)
		}
		if fn := w.onStatus.Load(); fn != nil {
			(*fn)(st)
		}
	}
	if len(lines) > 0 && visible {
		w.emit("logs", lines)
	}
}

// setVisible notes whether the window can be seen (the page reports
// visibilitychange: minimized, hidden to the tray, shown again). Hidden,
// the window is sent nothing; shown, it gets one fresh status.
func (w *shell) setVisible(visible bool) {
	if w.visible.Swap(visible) == visible || !visible {
		return
	}
	select {
	case w.shown <- struct{}{}:
	default:
	}
}

func (w *shell) emit(topic string, data any) {
	if ui := w.ui.Load(); ui != nil {
		(*ui).Emit(topic, data)
	}
}
