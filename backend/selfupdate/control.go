package selfupdate

import (
	"context"
	"fmt"

	"hermes-desktop/backend/control"
	"hermes-desktop/backend/control/protocol"
	"hermes-desktop/contract/errkind"
)

// HandleControl answers the control socket's update operations (update
// check, apply and skip); the launcher routes them here. An apply whose
// successor took the backends over is answered first, then the launcher is
// handed over (protocol.Op.AnswerThen). An update's failure travels as the
// code protocol.UpdateError gives it.
func (u *Updater) HandleControl(ctx context.Context, req control.Request) (any, error) {
	switch req.Op {
	case protocol.OpUpdateCheck.Name:
		return protocol.OpUpdateCheck.Answer(u.Check(ctx, false))
	case protocol.OpUpdateApply.Name:
		res, err := u.apply(ctx)
		err = protocol.UpdateError(err)
		if res == nil {
			return nil, err
		}
		return protocol.OpUpdateApply.AnswerThen(res, err, u.launcher.HandedOver)
	case protocol.OpUpdateSkip.Name:
		args, err := protocol.OpUpdateSkip.Args(req)
		if err != nil {
			return nil, err
		}
		return protocol.OpUpdateSkip.Answer(protocol.SkipResult{Skipped: args.Version}, u.Skip(args.Version))
	}
	return nil, fmt.Errorf("%w %q", errkind.ErrUnknownOp, req.Op)
}
