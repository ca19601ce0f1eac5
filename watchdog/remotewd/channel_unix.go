//go:build unix

package remotewd

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// channelWriter writes the remote watchdog's lines to the lifeline
// attached now (the channel's stdout, then a claim's connection) through a
// bounded queue, one goroutine per lifeline: one that stops reading (a
// partition) must never block the watchdog, which has a teardown to run,
// nor keep lines from the lifeline that replaced it. Lines that do not fit
// are dropped, and a count of them is sent once there is room again; lines
// sent while no lifeline is attached are dropped (the log file keeps the
// backend's output).
type channelWriter struct {
	mu      sync.Mutex // guards what follows
	sink    *sink      // nil: no lifeline attached
	closed  bool
	dropped int
}

// sink is one lifeline's queue and the goroutine that writes it; the
// goroutine ends once the queue is closed and drained (a write that
// blocks forever keeps it until the process ends: the lifeline is gone).
type sink struct {
	queue chan string
	done  chan struct{}
}

// channelQueue bounds the lines waiting for a slow channel.
const channelQueue = 4096

func newChannelWriter(w io.Writer) *channelWriter {
	return &channelWriter{sink: newSink(w)}
}

func newSink(w io.Writer) *sink {
	s := &sink{queue: make(chan string, channelQueue), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		bw := bufio.NewWriter(w)
		for line := range s.queue {
			if _, err := bw.WriteString(line); err != nil {
				continue // the lifeline is gone; keep draining so senders never block
			}
			if len(s.queue) == 0 {
				_ = bw.Flush()
			}
		}
		_ = bw.Flush()
	}()
	return s
}

// attach makes w the lifeline lines go to from now on (nil: none); what
// was queued for the one before is written there or lost with it.
func (c *channelWriter) attach(w io.Writer) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	if c.sink != nil {
		close(c.sink.queue)
	}
	c.sink, c.dropped = nil, 0
	if w != nil {
		c.sink = newSink(w)
	}
}

// send queues one "<tag> <payload>" line; payload must hold no newline.
func (c *channelWriter) send(tag, payload string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || c.sink == nil {
		return
	}
	q := c.sink.queue
	if c.dropped > 0 && len(q) < channelQueue-1 {
		q <- fmt.Sprintf("%s %d lines of output dropped: the channel was not reading\n", TagErr, c.dropped)
		c.dropped = 0
	}
	select {
	case q <- tag + " " + payload + "\n":
	default:
		c.dropped++
	}
}

func (c *channelWriter) sendJSON(tag string, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		c.send(TagError, err.Error())
		return
	}
	c.send(tag, string(b))
}

func (c *channelWriter) sendError(err error) { c.send(TagError, oneLine(err.Error())) }

// close sends what is queued, waiting at most wait.
func (c *channelWriter) close(wait time.Duration) {
	c.mu.Lock()
	s := c.sink
	if !c.closed {
		c.closed = true
		if s != nil {
			close(s.queue)
		}
	}
	c.mu.Unlock()
	if s == nil {
		return
	}
	select {
	case <-s.done:
	case <-time.After(wait):
	}
}

// maxLine bounds one line from the app.
const maxLine = 4096

// readChannel delivers a lifeline's lines; it closes the channel at EOF or
// a read error. The goroutine ends with the input, once stop is closed
// (the lifeline was replaced), or with the process.
func readChannel(in io.Reader, stop <-chan struct{}) <-chan string {
	lines := make(chan string, 16)
	go func() {
		defer close(lines)
		s := bufio.NewScanner(in)
		s.Buffer(make([]byte, 0, 512), maxLine)
		for s.Scan() {
			select {
			case lines <- strings.TrimRight(s.Text(), "\r"):
			case <-stop:
				return
			}
		}
	}()
	return lines
}
