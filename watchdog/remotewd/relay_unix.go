//go:build unix

package remotewd

import (
	"fmt"
	"os"
	"sync"
	"time"

	"hermes-desktop/contract/logs"
)

func oneLine(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c == '\n' || c == '\r' {
			b[i] = ' '
		}
	}
	return string(b)
}

// relay carries the backend's stdout and stderr to the channel and to its
// log file in the ownership directory.
type relay struct {
	outR, errR *os.File
	outW, errW *os.File // the backend's ends, closed once it started
	log        *os.File
	logMu      sync.Mutex
	logged     int64
	out        *channelWriter
	wg         sync.WaitGroup
}

// maxRemoteLog bounds the remote log file: the app keeps the full log.
const maxRemoteLog = 16 << 20

func newRelay(logPath string, out *channelWriter) (*relay, error) {
	r := &relay{out: out}
	var err error
	if r.outR, r.outW, err = os.Pipe(); err != nil {
		return nil, fmt.Errorf("watchdog-remote: %w", err)
	}
	if r.errR, r.errW, err = os.Pipe(); err != nil {
		r.outR.Close()
		r.outW.Close()
		return nil, fmt.Errorf("watchdog-remote: %w", err)
	}
	if r.log, err = os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600); err != nil {
		r.log = nil // the channel still carries the output
	}
	r.wg.Add(2)
	go r.copy(r.outR, TagOut)
	go r.copy(r.errR, TagErr)
	return r, nil
}

// started closes our copies of the backend's ends, so EOF comes when the
// tree closes its own.
func (r *relay) started() {
	r.outW.Close()
	r.errW.Close()
}

// copy relays f line by line until EOF. A line too long for the app is
// cut (logs.ReadLines, as the local supervisor reads): a scanner would stop
// at its limit and leave the backend blocked on its next write.
func (r *relay) copy(f *os.File, tag string) {
	defer r.wg.Done()
	logs.ReadLines(f, func(line string) {
		r.out.send(tag, oneLine(line))
		r.logMu.Lock()
		if r.log != nil && r.logged < maxRemoteLog {
			n, _ := r.log.WriteString(line + "\n")
			r.logged += int64(n)
		}
		r.logMu.Unlock()
	})
}

// drain waits at most wait for the output to end, then closes the pipes
// (an escaped descendant may hold them open forever).
func (r *relay) drain(wait time.Duration) {
	r.outW.Close()
	r.errW.Close()
	done := make(chan struct{})
	go func() { r.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(wait):
		r.outR.Close()
		r.errR.Close()
		<-done
	}
	r.outR.Close()
	r.errR.Close()
	if r.log != nil {
		r.log.Close()
	}
}
