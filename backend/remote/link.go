package remote

import (
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"hermes-desktop/backend/run"
	"hermes-desktop/watchdog/remotewd"
)

// The link to a remote watchdog: the channel's stdin, which is its
// lifeline (one writer at a time), and the heartbeat over it, whose pongs
// say whether the connection is up and how fast.

// lifeline writes lines on the channel's stdin. A failed write is the
// channel's end, which its reader sees.
type lifeline struct {
	mu sync.Mutex // one writer at a time
	in io.WriteCloser
}

// attach starts writing to in.
func (l *lifeline) attach(in io.WriteCloser) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.in = in
}

// send writes one line; nothing before attach or after close.
func (l *lifeline) send(line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.in == nil {
		return
	}
	_, _ = io.WriteString(l.in, line+"\n")
}

// close closes stdin: EOF on the lifeline ends whatever runs there.
func (l *lifeline) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.in != nil {
		l.in.Close()
		l.in = nil
	}
}

// heartbeat is the pings the app writes and the pongs the remote watchdog
// answers: from them, the latency and whether the connection still counts
// as connected.
type heartbeat struct {
	every   time.Duration // the period
	changed chan struct{} // buffered(1): the connection's state changed

	mu       sync.Mutex // guards what follows
	sentAt   map[uint64]time.Time
	seq      uint64
	lastPong time.Time // zero until the beat starts
	latency  time.Duration
	answered bool // a pong has come: the remote watchdog answers at once now
}

func newHeartbeat(every time.Duration) heartbeat {
	return heartbeat{every: every, changed: make(chan struct{}, 1), sentAt: map[uint64]time.Time{}}
}

// begin starts counting silence from now.
func (h *heartbeat) begin() {
	h.mu.Lock()
	h.lastPong = time.Now()
	h.mu.Unlock()
}

// ping is the next ping's line; pings never answered (lost with a blip)
// are forgotten.
func (h *heartbeat) ping() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.seq++
	n := h.seq
	h.sentAt[n] = time.Now()
	for k := range h.sentAt {
		if k+64 < n {
			delete(h.sentAt, k)
		}
	}
	return remotewd.FormatPing(n)
}

// pong takes an answer: its round trip is the latency.
func (h *heartbeat) pong(payload string) {
	n, err := strconv.ParseUint(payload, 10, 64)
	if err != nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if sent, ok := h.sentAt[n]; ok {
		// The first ping goes out with the start and waits until the
		// backend runs there: its round trip is the backend's spawn (100 ms
		// and more), not the link's, and was shown as the latency.
		if h.answered {
			h.latency = time.Since(sent)
		}
		h.answered = true
		delete(h.sentAt, n)
	}
	if time.Since(h.lastPong) > h.silenceLimit() {
		h.notify() // back after a silence: say so now, not a beat later
	}
	h.lastPong = time.Now()
}

// notify says that the connection's state changed.
func (h *heartbeat) notify() {
	select {
	case h.changed <- struct{}{}:
	default:
	}
}

// silenceLimit is how long without a pong the connection still counts as
// connected: one beat and the round trip, with a margin. Longer, the card
// said Connected for seconds while the page did not answer. Called with mu
// held.
func (h *heartbeat) silenceLimit() time.Duration {
	return min(h.every+500*time.Millisecond+2*h.latency, 2*h.every+time.Second)
}

// show fills in c's state from the pongs once the beat has started:
// "reconnecting" once a pong is later than silenceLimit (its latency no
// longer shown), with what happens after grace on dest.
func (h *heartbeat) show(c *run.Connection, dest string, grace time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.lastPong.IsZero() {
		return
	}
	silent := time.Since(h.lastPong)
	if silent <= h.silenceLimit() {
		c.State = "connected"
		return
	}
	c.State = "reconnecting"
	c.Latency = 0 // the last one measured says nothing of now
	c.Attempt = int(silent / h.every)
	c.NextAttempt = h.lastPong.Add(time.Duration(c.Attempt+1) * h.every)
	c.Error = fmt.Sprintf("no answer from %s for %s; the backend there ends after %s without one", dest, silent.Round(time.Second), grace)
}

// lastAnswer is when the last pong came (the beat's start before one).
func (h *heartbeat) lastAnswer() time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.lastPong
}

// measured is the last latency measured.
func (h *heartbeat) measured() time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.latency
}
