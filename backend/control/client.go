package control

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"hermes-desktop/contract/errkind"
)

// Call sends req to the instance running on stateDir and returns its
// result. ErrNotRunning means nobody listens there. An error answered by the
// instance is a *RemoteError: errors.Is matches it against the sentinel of
// its code (ErrNoSuchBackend, ErrBusy, ...).
func Call(ctx context.Context, stateDir string, req Request) (json.RawMessage, error) {
	addr, err := address(stateDir)
	if err != nil {
		return nil, err
	}
	conn, err := dial(ctx, addr)
	if err != nil {
		if notListening(err) {
			return nil, fmt.Errorf("%w on %s", ErrNotRunning, stateDir)
		}
		return nil, fmt.Errorf("control: connect: %w", err)
	}
	defer conn.Close()
	if err := checkServer(conn); err != nil {
		return nil, err
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Now()) })
	defer stop()
	if err := json.NewEncoder(conn).Encode(req); err != nil {
		return nil, fmt.Errorf("control: send %s: %w", req.Op, err)
	}
	var resp Response
	if err := json.NewDecoder(io.LimitReader(conn, maxMessage)).Decode(&resp); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("control: %s: %w", req.Op, ctx.Err())
		}
		return nil, fmt.Errorf("control: read answer to %s: %w", req.Op, err)
	}
	if !resp.OK {
		code := resp.Code
		if code == "" {
			code = errkind.CodeInternal // an instance older than the codes
		}
		return nil, &errkind.RemoteError{Code: code, Message: resp.Error}
	}
	return resp.Result, nil
}
