package instance

import (
	"context"
	"io"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"hermes-desktop/backend/run"
	"hermes-desktop/backend/runspec"
	"hermes-desktop/contract/hermes"
	"hermes-desktop/contract/logs"
)

// output is a run's output and what readiness reads from it: the lines,
// into the backend's log; the port they announce (or the ready file); and
// the first loopback URL they print, where a Hermes that found a backend
// already running says it is (attach).
type output struct {
	log        *logs.Log
	outR, errR *os.File // our read ends of the leader's stdout and stderr
	readers    sync.WaitGroup
	closeOnce  sync.Once // close runs once: drain may call it twice
	ready      *run.PortMatcher
	readyFile  string // where the backend may write {"port": N} instead
	seenURL    atomic.Pointer[string]
}

// start starts the two readers, which end at EOF (or when drain or close
// closes the pipes).
func (o *output) start() {
	o.readers.Add(2)
	go o.read(o.outR, "stdout")
	go o.read(o.errR, "stderr")
}

// read feeds each output line to the log and the ready matcher.
func (o *output) read(r io.Reader, stream string) {
	defer o.readers.Done()
	logs.ReadLines(r, func(line string) {
		o.log.Add(stream, line)
		if u := hermes.FindLoopbackURL(line); u != "" {
			o.seenURL.CompareAndSwap(nil, &u) // the first one counts
		}
		o.ready.Line(line)
	})
}

// drain waits briefly for the readers to drain, then closes the read
// ends: a descendant that escaped us would otherwise hold the pipes open
// and the readers forever.
func (o *output) drain() {
	done := make(chan struct{})
	go func() { o.readers.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		o.close()
		<-done
	}
	o.close()
}

// close closes our read ends; the readers end (on Windows, where closing
// does not interrupt a read, once interruptReads has ended them).
func (o *output) close() {
	o.closeOnce.Do(func() {
		interruptReads(o)
		o.outR.Close()
		o.errR.Close()
	})
}

// awaitPort waits for the port the output announces or the ready file
// names, until exited closes (run.ErrExitedEarly) or ctx ends.
func (o *output) awaitPort(ctx context.Context, spec *runspec.Spec, exited <-chan struct{}) (int, error) {
	t := time.NewTicker(run.ReadyPollInterval)
	defer t.Stop()
	for {
		select {
		case port := <-o.ready.Found():
			return port, nil
		case <-exited:
			return 0, run.ErrExitedEarly
		case <-ctx.Done():
			return 0, run.TimeoutError(ctx, spec, "announce a port (no line matched "+strconv.Quote(spec.ReadyRegex)+" and no ready file)")
		case <-t.C:
			if port, ok := readReadyFile(o.readyFile); ok {
				return port, nil
			}
		}
	}
}
