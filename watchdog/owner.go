package watchdog

import (
	"context"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"
)

// followOwner watches the launcher that owns us and returns when it is
// gone. An owner message on the lifeline switches to the new owner and
// starts watching it instead; a stop message calls onStop (nil: ignored)
// and watching goes on. It returns ok=false when ctx ends. exitWord (nil:
// none) is the first owner's, and is watched only while that one owns us.
func followOwner(ctx context.Context, parent Parent, lifeline *os.File, exitWord *exitWord, onStop func(), log *slog.Logger) (Reason, bool) {
	defer func() { exitWord.close() }()
	poll := time.Duration(0) // getppid() once a second while our parent is the owner, where no exit notification can be armed
	for {
		wctx, cancel := context.WithCancel(ctx)
		next := make(chan Parent, 1)
		reason, err := Watch(wctx, Options{
			Parent:       parent,
			Lifeline:     lifeline,
			exitWord:     exitWord,
			PollInterval: poll,
			OnMessage: func(line string) {
				if line == StopMessage && onStop != nil {
					onStop()
					return
				}
				if p, ok := parseOwner(line); ok {
					select {
					case next <- p:
					default:
					}
					cancel()
				}
			},
		})
		cancel()
		if err == nil && reason != ReasonLifeline {
			// The owner we watched is gone. If it was handing us over, the
			// new owner's message is already here, or still in the pipe:
			// the old owner exits right after its successor has written it.
			if p, ok := pendingOwner(next, lifeline, reason == ReasonOwnerExiting); ok {
				next <- p
				err = context.Canceled
			}
		}
		if err == nil {
			return reason, true
		}
		select {
		case p := <-next:
			log.Info("new owner", "pid", p.PID, "previous", parent.PID)
			trace("new-owner", strconv.Itoa(p.PID))
			p.Nonce = parent.Nonce
			parent, poll = p, -1
			exitWord.close() // the old owner's: its exit is no news now
			exitWord = nil
		default:
			return "", false // ctx ended
		}
	}
}

// pendingOwner returns an owner message that arrived with the death of the
// previous owner: one the reader already took, or one still in the pipe
// (read within a short deadline). With now, what the pipe holds is read
// without waiting: the owner's exit has only begun, its lifeline is still
// open, and a successor wrote its message before the owner began to exit.
func pendingOwner(next chan Parent, lifeline *os.File, now bool) (Parent, bool) {
	select {
	case p := <-next:
		return p, true
	default:
	}
	if lifeline == nil {
		return Parent{}, false
	}
	buf := make([]byte, maxLifelineLine)
	var n int
	if now {
		n = readNow(lifeline, buf)
	} else {
		_ = lifeline.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
		n, _ = lifeline.Read(buf)
		clearDeadline(lifeline)
	}
	for _, line := range strings.Split(string(buf[:n]), "\n") {
		if p, ok := parseOwner(strings.TrimSpace(line)); ok {
			return p, true
		}
	}
	return Parent{}, false
}
