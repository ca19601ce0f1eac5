package supervisor

import (
	"context"
	"fmt"
	"log/slog"

	"hermes-desktop/backend/handoff"
	"hermes-desktop/backend/model"
	"hermes-desktop/backend/run"
	"hermes-desktop/lockfile"
)

// current is the run the Supervisor's goroutine owns: the Process, what it
// can do beyond it (asked once, when it starts or is adopted), and where
// its start stands. The Supervisor acts on a run only through these, so it
// never asks what kind of run it is.
type current struct {
	run.Process
	can run.Abilities

	port     int  // 0 until ready
	reported bool // the backend's identity is in the record
	// ready delivers AwaitReady's answer (nil once it came, or for an
	// adopted run); stopReady ends that wait.
	ready     chan readyResult
	stopReady context.CancelFunc
}

func newCurrent(p run.Process) *current {
	return &current{Process: p, can: run.AbilitiesOf(p)}
}

// process is the run's Process; nil when nothing runs.
func (c *current) process() run.Process {
	if c == nil {
		return nil
	}
	return c.Process
}

type readyResult struct {
	p    run.Process
	port int
	err  error
}

// awaitReady starts waiting for readiness on a goroutine of its own, under
// ctx; its answer comes on c.ready.
func (c *current) awaitReady(ctx context.Context) {
	readyCtx, cancel := context.WithCancel(ctx)
	ch := make(chan readyResult, 1) // never blocks the sender, even after we stop listening
	c.ready, c.stopReady = ch, cancel
	p := c.Process
	go func() {
		port, err := p.AwaitReady(readyCtx)
		ch <- readyResult{p: p, port: port, err: err}
	}()
}

// endWait stops waiting for readiness.
func (c *current) endWait() {
	if c.stopReady != nil {
		c.stopReady()
		c.stopReady = nil
	}
	c.ready = nil
}

// writeRecord writes the run's ownership record again; a run without a
// local record (Recorder) writes nothing.
func (c *current) writeRecord(records *lockfile.Records) error {
	if c.can.Recorder == nil {
		return nil
	}
	return records.Write(c.can.Recorder.Record(c.port))
}

// handoffView is what a handoff needs of the run, ready, in status st. A
// run that cannot be handed over is started anew by the successor. A
// local run that cannot describe itself fails the handoff (before
// anything changed): started anew, it would lose its tree.
func (c *current) handoffView(st model.BackendStatus) (handoff.View, error) {
	if c.can.RemoteTransfer != nil {
		// The watchdog there is told now that a successor may claim it;
		// when this fails, the successor starts it anew.
		h, err := c.can.RemoteTransfer.HandOver(handoff.RemoteWindow)
		if err != nil {
			return handoff.View{Status: st, Remote: true}, nil
		}
		return handoff.View{Status: st, Remote: true, RemoteHandover: &h}, nil
	}
	if c.can.Transfer == nil {
		return handoff.View{Status: st, Remote: true}, nil
	}
	h, err := c.can.Transfer.Handover()
	return handoff.View{Status: st, Handover: h}, err
}

// letGo leaves the run to a successor without teardown; a run no successor
// takes over ends, in the background.
func (c *current) letGo() {
	c.endWait()
	if c.can.Transfer != nil {
		c.can.Transfer.Detach()
		return
	}
	if c.can.RemoteTransfer != nil {
		c.can.RemoteTransfer.Detach() // its watchdog holds it for the claim, if a handover was made
		return
	}
	go func() { _ = c.Stop() }()
}

// connection is the run's connection as the status shows it now; nil for
// a run without one.
func (c *current) connection() *model.RemoteStatus {
	if c == nil || c.can.Connected == nil {
		return nil
	}
	return remoteStatus(c.can.Connected.Connection())
}

// finish removes the record of a run whose tree is gone. If the tree could
// not be confirmed gone, the record stays: it is the evidence the next
// boot's reaper needs.
func (c *current) finish(records *lockfile.Records, log *slog.Logger) {
	select {
	case <-c.Exited():
	default:
		return
	}
	if err := c.TreeGone(); err != nil {
		log.Error("the backend's tree may not be gone; its record stays for the next boot's reap", "err", err)
		return
	}
	if err := records.Remove(c.Info().Nonce); err != nil {
		log.Error("remove record", "err", err)
	}
}

// remoteStatus is the status' view of a connection to another host.
func remoteStatus(c run.Connection) *model.RemoteStatus {
	rs := &model.RemoteStatus{
		Connection: c.State, Attempt: c.Attempt, Platform: c.Platform, Port: c.Port,
		LockDir: c.LockDir, Error: c.Error, Isolation: c.Isolation, IsolationReason: c.IsolationReason,
	}
	if !c.NextAttempt.IsZero() {
		t := c.NextAttempt
		rs.NextAttempt = &t
	}
	if c.Latency > 0 {
		rs.LatencyMS = float64(c.Latency.Microseconds()) / 1000
	}
	return rs
}

// lastWord is what the status keeps of a connection once its run ended:
// its state and error stay, the dead run's figures go (nil stays nil).
func lastWord(r *model.RemoteStatus) *model.RemoteStatus {
	if r == nil {
		return nil
	}
	return &model.RemoteStatus{Connection: r.Connection, Platform: r.Platform, Error: r.Error}
}

// errNotReady is the handoff's answer for a run that is not ready yet.
func errNotReady(name string, state model.State) error {
	return fmt.Errorf("backend %s is %s, not ready: try the handoff again when it is", name, state)
}
