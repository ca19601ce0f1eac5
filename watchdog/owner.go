package watchdog

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"hermes-desktop/internal/proc"
)

// OwnerMessage, followed by " <pid> <start marker>", is the line a new
// launcher writes on a lifeline when it takes the backend over (update
// handoff in adopt mode). From then on the shim watches the new owner: its
// exit notification, and no longer getppid(), since the shim's parent is
// the old launcher, which is about to exit.
const OwnerMessage = "owner"

// FormatOwner formats the owner message for a lifeline.
func FormatOwner(id proc.Identity) string {
	return fmt.Sprintf("%s %d %s\n", OwnerMessage, id.PID, id.Start)
}

// parseOwner reads an owner message; ok is false for anything else.
func parseOwner(line string) (Parent, bool) {
	rest, ok := strings.CutPrefix(line, OwnerMessage+" ")
	if !ok {
		return Parent{}, false
	}
	pidStr, marker, ok := strings.Cut(rest, " ")
	pid, err := strconv.Atoi(pidStr)
	if !ok || err != nil || pid <= 1 {
		return Parent{}, false
	}
	if _, _, err := proc.ParseMarker(marker); err != nil {
		return Parent{}, false
	}
	return Parent{PID: pid, Start: marker}, true
}

// followOwner watches the launcher that owns us and returns when it is
// gone. An owner message on the lifeline switches to the new owner and
// starts watching it instead. It returns ok=false when ctx ends.
func followOwner(ctx context.Context, parent Parent, lifeline *os.File, log *slog.Logger) (Reason, bool) {
	poll := time.Duration(0) // getppid() once a second, while our parent is the owner
	for {
		wctx, cancel := context.WithCancel(ctx)
		next := make(chan Parent, 1)
		reason, err := Watch(wctx, Options{
			Parent:       parent,
			Lifeline:     lifeline,
			PollInterval: poll,
			OnMessage: func(line string) {
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
			if p, ok := pendingOwner(next, lifeline); ok {
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
		default:
			return "", false // ctx ended
		}
	}
}

// pendingOwner returns an owner message that arrived with the death of the
// previous owner: one the reader already took, or one still in the pipe
// (read within a short deadline).
func pendingOwner(next chan Parent, lifeline *os.File) (Parent, bool) {
	select {
	case p := <-next:
		return p, true
	default:
	}
	if lifeline == nil {
		return Parent{}, false
	}
	_ = lifeline.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	defer clearDeadline(lifeline)
	buf := make([]byte, maxLifelineLine)
	n, _ := lifeline.Read(buf)
	for _, line := range strings.Split(string(buf[:n]), "\n") {
		if p, ok := parseOwner(strings.TrimSpace(line)); ok {
			return p, true
		}
	}
	return Parent{}, false
}
