package watchdog

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"strings"

	"hermes-desktop/platform/handles"
)

// maxLifelineLine bounds one message from the parent.
const maxLifelineLine = 4096

// readLifeline reads the lifeline until EOF (parent gone) or ctx ends.
// Cancellation works through a read deadline, which is why the lifeline
// must be pollable.
func readLifeline(ctx context.Context, f *os.File, onMessage func(string)) (Reason, bool) {
	clearDeadline(f) // a previous watch may have interrupted a read
	returned := make(chan struct{})
	interrupted := make(chan struct{})
	stop := context.AfterFunc(ctx, func() { defer close(interrupted); handles.InterruptRead(returned, f) })
	defer func() {
		close(returned)
		if !stop() {
			<-interrupted // an interruption under way ends before the next reader starts
		}
	}()
	r := bufio.NewReaderSize(f, maxLifelineLine)
	for {
		line, err := r.ReadString('\n')
		if line = strings.TrimRight(line, "\r\n"); line != "" && err == nil && onMessage != nil {
			onMessage(line)
		}
		switch {
		case err == nil:
			continue
		case errors.Is(err, io.EOF):
			return ReasonLifeline, true
		case errors.Is(err, bufio.ErrBufferFull):
			continue // an over-long line is dropped, not fatal
		case ctx.Err() != nil:
			return "", false
		default:
			// EBADF and the like: the lifeline is unusable, which we cannot
			// tell apart from the parent's death. Fail safe: report it.
			return ReasonLifeline, true
		}
	}
}
