package backend

import (
	"context"
	"fmt"

	"hermes-desktop/backend/control"
	"hermes-desktop/backend/control/protocol"
	"hermes-desktop/contract/errkind"
)

// controlHandler answers the control socket for the launcher l: its own
// operations here, a handoff's through the Sender, an update's through the
// Updater.
type controlHandler struct{ l *Launcher }

// HandleControl answers one request.
func (h controlHandler) HandleControl(ctx context.Context, req control.Request) (any, error) {
	l := h.l
	switch req.Op {
	case protocol.OpStatus.Name:
		return protocol.OpStatus.Answer(l.Status(), nil)
	case protocol.OpRestart.Name:
		return protocol.OpRestart.Answer(protocol.None{}, l.Restart(ctx, req.Backend))
	case protocol.OpPage.Name, protocol.OpOpen.Name:
		u, err := l.pages.URL(req.Backend)
		if err == nil && req.Op == protocol.OpOpen.Name {
			err = l.pages.OpenExternal(u)
		}
		return protocol.OpPage.Answer(protocol.PageResult{URL: u}, err)
	case protocol.OpStartBackend.Name:
		return protocol.OpStartBackend.Answer(protocol.None{}, l.StartBackend(ctx, req.Backend))
	case protocol.OpStopBackend.Name:
		return protocol.OpStopBackend.Answer(protocol.None{}, l.StopBackend(ctx, req.Backend))
	case protocol.OpStop.Name:
		l.RequestStop()
		select {
		case <-l.stop.backendsGone: // answer only once the trees are gone
			return protocol.OpStop.Answer(protocol.StopResult{Stopped: true}, nil)
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	case protocol.OpFocus.Name:
		focused := l.pages.focusWindow()
		return protocol.OpFocus.Answer(protocol.FocusResult{Focused: focused, UI: l.cfg.UI}, nil)
	}
	return h.handleArgs(ctx, req)
}

// handleArgs answers the operations that take arguments, and hands the
// handoff's and the update's to their objects.
func (h controlHandler) handleArgs(ctx context.Context, req control.Request) (any, error) {
	switch req.Op {
	case protocol.OpReap.Name:
		args, err := protocol.OpReap.Args(req)
		if err != nil {
			return nil, err
		}
		return protocol.OpReap.Answer(h.l.Reap(ctx, args.DryRun, args.MinAgeDuration(), args.Only))
	case protocol.OpAddBackend.Name:
		b, err := protocol.OpAddBackend.Args(req)
		if err != nil {
			return nil, err
		}
		return protocol.OpAddBackend.Answer(protocol.None{}, h.l.Saved().AddBackend(b))
	case protocol.OpRemoveBackend.Name:
		if req.Backend == "" { // never "the default one": a removal names what it removes
			return nil, fmt.Errorf("%w: remove-backend names the backend to remove", errkind.ErrBadRequest)
		}
		return protocol.OpRemoveBackend.Answer(protocol.None{}, h.l.Saved().RemoveBackend(ctx, req.Backend))
	case protocol.OpLogs.Name:
		args, err := protocol.OpLogs.Args(req)
		if err != nil {
			return nil, err
		}
		return protocol.OpLogs.Answer(h.l.Logs(req.Backend, args.After, args.Max))
	case protocol.OpHandoff.Name, protocol.OpHandoffCommit.Name:
		return h.l.handoff.HandleControl(ctx, req)
	case protocol.OpUpdateCheck.Name, protocol.OpUpdateApply.Name, protocol.OpUpdateSkip.Name:
		return h.l.upd.HandleControl(ctx, req)
	}
	return nil, fmt.Errorf("%w %q", errkind.ErrUnknownOp, req.Op)
}
