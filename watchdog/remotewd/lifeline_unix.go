//go:build unix

package remotewd

import (
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"hermes-desktop/watchdog"
)

// lifeline is where the app's lines come from now: the channel's stdin,
// then a claim's connection.
type lifeline struct {
	lines <-chan string
	stop  chan struct{} // closed when it is replaced: its reader ends
	conn  net.Conn      // nil for stdin
	last  time.Time     // when its last line came
	// handover is the window a handover line gave, at handoverAt: an EOF
	// within it keeps the tree that long (0: none came). A handover that
	// no EOF followed in time lapses (the update was given up): the app's
	// later quit must still end the tree at once.
	handover   time.Duration
	handoverAt time.Time
}

func newLifeline(in io.Reader, conn net.Conn) *lifeline {
	l := &lifeline{stop: make(chan struct{}), conn: conn, last: time.Now()}
	l.lines = readChannel(in, l.stop)
	return l
}

// drop stops reading l (and closes it when it is a connection).
func (l *lifeline) drop() {
	close(l.stop)
	if l.conn != nil {
		l.conn.Close()
	}
}

// follow reads the lifeline once the backend runs: it answers pings, keeps
// the lock's port, takes claims, and ends the run on "stop", silence for
// the heartbeat grace, an EOF that does not hold (holdAfter), or a hold
// that no claim ended in time.
func (r *remoteRun) follow(l *lifeline, signals chan<- os.Signal, parentGone chan<- watchdog.Reason) {
	defer close(r.ended)
	timer := time.NewTimer(r.o.HeartbeatGrace)
	defer timer.Stop()
	gone := func(why string) {
		r.why.CompareAndSwap(nil, &why)
		parentGone <- watchdog.ReasonLifeline
	}
	held := "" // why the tree waits without a lifeline ("": one is attached)
	for {
		var lines <-chan string
		if l != nil {
			lines = l.lines
		}
		select {
		case line, open := <-lines:
			if open {
				l.last = time.Now()
				timer.Reset(r.o.HeartbeatGrace)
				r.handle(l, line, signals)
				continue
			}
			hold, why := r.holdAfter(l)
			if hold <= 0 {
				gone(why)
				return
			}
			r.log.Info("the lifeline closed; holding the tree for a claim", "for", hold, "why", why)
			l.drop()
			l, held = nil, why
			r.out.attach(nil)
			timer.Reset(hold)
		case c := <-r.claims:
			if next := r.takeClaim(c); next != nil {
				if l != nil {
					l.drop()
				}
				l, held = next, ""
				timer.Reset(r.o.HeartbeatGrace)
			}
		case <-timer.C:
			if held != "" {
				gone("no claim came: " + held)
			} else {
				gone(fmt.Sprintf("no heartbeat from the app for %s", r.o.HeartbeatGrace))
			}
			return
		}
	}
}

// holdAfter is how long l's EOF keeps the tree, and why: the handover's
// window after a handover; else, when l was silent for more than two beats
// (the connection went quiet before it closed), what is left of the
// heartbeat grace; else 0 (the app closed it: the tree goes at once).
func (r *remoteRun) holdAfter(l *lifeline) (time.Duration, string) {
	closed := "the channel to the app closed"
	switch {
	case r.ln == nil:
		return 0, closed
	case l.handover > 0 && time.Since(l.handoverAt) <= l.handover:
		return l.handover, fmt.Sprintf("the app handed the backend over; no successor claimed it within %s", l.handover)
	}
	silent := time.Since(l.last)
	if silent <= 2*BeatEvery(r.o.HeartbeatGrace) {
		return 0, closed
	}
	return r.o.HeartbeatGrace - silent, fmt.Sprintf("the channel to the app closed after %s of silence; no claim within the heartbeat grace (%s)", silent.Round(time.Millisecond), r.o.HeartbeatGrace)
}

// takeClaim answers a claim that matched and makes its connection the
// lifeline; nil when the answer cannot be written (the claimant is gone).
func (r *remoteRun) takeClaim(c claim) *lifeline {
	ans := RemoteClaimed{RemoteBackend: r.report, Shim: r.self, Port: r.lock.Port}
	_ = c.conn.SetWriteDeadline(time.Now().Add(claimWriteTimeout))
	_, err := fmt.Fprintf(c.conn, "%s %s\n", TagClaimed, mustJSON(ans))
	_ = c.conn.SetWriteDeadline(time.Time{})
	if err != nil {
		r.log.Warn("answer a claim", "err", err)
		c.conn.Close()
		return nil
	}
	r.log.Info("claimed: a new lifeline")
	r.out.attach(c.conn)
	return newLifeline(c.in, c.conn)
}

// handle carries out one line of the lifeline l.
func (r *remoteRun) handle(l *lifeline, line string, signals chan<- os.Signal) {
	tag, arg, _ := strings.Cut(line, " ")
	switch tag {
	case TagPing:
		r.out.send(TagPong, arg)
	case TagPort:
		if p, err := strconv.Atoi(arg); err == nil && p > 0 && p <= 65535 && p != r.lock.Port {
			r.lock.Port = p
			if err := r.writeLock(); err != nil {
				r.log.Warn("update the lock's port", "err", err)
			}
			r.iso.SetPort(p, r.log)
		}
	case TagKill:
		r.smp.request(arg)
	case TagSecret:
		r.setSecret(arg)
	case TagHandover:
		secret, window, err := ParseHandover(arg)
		if err != nil {
			r.log.Warn("ignored a handover", "err", err)
			return
		}
		r.keys.setOnce(secret)
		l.handover, l.handoverAt = window, time.Now()
	case TagStop:
		why := "the app asked it to stop"
		r.why.CompareAndSwap(nil, &why)
		watchdog.RequestStop(signals)
	}
}

// setSecret takes a new session secret (a successor's, after its claim)
// and keeps it in the session file.
func (r *remoteRun) setSecret(s string) {
	if !ValidSecret(s) {
		r.log.Warn("ignored a session secret that is not 64 hex digits")
		return
	}
	r.keys.setSession(s)
	if r.sess.OwnershipID == "" {
		return // before the session file: own() writes it
	}
	r.sess.Secret = s
	if err := r.writeSession(); err != nil {
		r.log.Warn("keep the new session secret", "err", err)
	}
}
