// Package protocol is the control channel's protocol, defined once for
// both sides: every operation the launcher answers, with the type of its
// arguments and of its result. The launcher's handlers (backend, handoff,
// selfupdate) decode arguments and answer results through an Op; the CLI,
// a successor and the health window call through the same Op and get the
// result typed.
//
// The error codes each operation may answer, and their sentinels, are the
// contract's (contract/errkind); the update package's own errors
// get theirs here (UpdateError), so that package knows nothing of the
// channel. errors.Is works on them on both sides of the channel.
package protocol

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"hermes-desktop/backend/control"
	"hermes-desktop/backend/model"
	"hermes-desktop/backend/reap"
	"hermes-desktop/backend/settings"
	"hermes-desktop/backend/update"
	"hermes-desktop/contract/logs"
)

// Op is one operation: its name on the wire (control.Request.Op), the
// type of its arguments (Req, sent as Request.Args) and of its result
// (Res, answered as Response.Result). None stands for either when there
// is none: nothing is sent for it.
type Op[Req, Res any] struct{ Name string }

// None is the arguments or the result of an operation that has none.
type None struct{}

// The operations. Request.Backend names the backend of those that act on
// one ("" means the default backend, or all for OpRestart and
// OpStartBackend).
var (
	// OpStatus answers the instance's status (`status --json`).
	OpStatus = Op[None, model.Status]{"status"}
	// OpRestart restarts one backend, or all.
	OpRestart = Op[None, None]{"restart"}
	// OpStartBackend starts a stopped or failed backend, or every one.
	OpStartBackend = Op[None, None]{"start-backend"}
	// OpStopBackend stops one backend; the instance keeps running.
	OpStopBackend = Op[None, None]{"stop-backend"}
	// OpAddBackend adds a backend, starts it and saves the list (the
	// window's Add; `backends add`).
	OpAddBackend = Op[settings.Backend, None]{"add-backend"}
	// OpRemoveBackend stops a backend's whole tree, forgets it and saves
	// the list (the window's Remove; `backends remove`).
	OpRemoveBackend = Op[None, None]{"remove-backend"}
	// OpStop stops the instance, answering once every backend's tree is
	// gone.
	OpStop = Op[None, StopResult]{"stop"}
	// OpFocus brings the instance's window forward (a second launch).
	OpFocus = Op[None, FocusResult]{"focus"}
	// OpReap reaps orphaned backends now.
	OpReap = Op[ReapArgs, *reap.Report]{"reap"}
	// OpLogs answers a backend's log lines after a sequence number.
	OpLogs = Op[LogsArgs, []logs.Line]{"logs"}
	// OpPage answers the page Open Hermes opens.
	OpPage = Op[None, PageResult]{"page"}
	// OpOpen answers the same page and opens it in the default browser.
	OpOpen = Op[None, PageResult]{"open"}
	// OpHandoff hands the instance over to another binary (handoff.Sender).
	OpHandoff = Op[HandoffArgs, *HandoffResult]{"handoff"}
	// OpHandoffCommit is sent by a successor to the instance handing over:
	// from its answer on, the successor owns the backends.
	OpHandoffCommit = Op[CommitArgs, CommitResult]{"handoff-commit"}
	// OpUpdateCheck checks the update feed and answers what it offers.
	OpUpdateCheck = Op[None, update.Check]{"update-check"}
	// OpUpdateApply downloads, verifies and installs the newer version and
	// hands over to it, answering once it serves.
	OpUpdateApply = Op[None, *update.Result]{"update-apply"}
	// OpUpdateSkip stops offering one version ("" offers it again).
	OpUpdateSkip = Op[SkipArgs, SkipResult]{"update-skip"}
)

// StopResult is OpStop's answer.
type StopResult struct {
	Stopped bool `json:"stopped"`
}

// FocusResult is OpFocus's answer: whether a window was brought forward,
// and the instance's UI (gui or headless; "mode" on the wire).
type FocusResult struct {
	Focused bool   `json:"focused"`
	UI      string `json:"mode"` // the answering instance's, "gui" or "headless"
}

// PageResult is OpPage's and OpOpen's answer.
type PageResult struct {
	URL string `json:"url"`
}

// ReapArgs are OpReap's arguments.
type ReapArgs struct {
	DryRun bool `json:"dry_run"`
	// MinAge overrides the minimum orphan age, in nanoseconds: absent
	// (nil) means the configured age, 0 means no minimum.
	MinAge *int64 `json:"min_age_ns,omitempty"`
	// Only, when non-nil, limits the reap to these PIDs (see reap.Options).
	Only []int `json:"only,omitempty"`
}

// MinAgeDuration is MinAge as a duration; nil when absent.
func (a ReapArgs) MinAgeDuration() *time.Duration {
	if a.MinAge == nil {
		return nil
	}
	return new(time.Duration(*a.MinAge))
}

// LogsArgs are OpLogs' arguments: the lines after sequence number After,
// at most Max of them.
type LogsArgs struct {
	After uint64 `json:"after"`
	Max   int    `json:"max"`
}

// HandoffMode selects how a successor takes over.
type HandoffMode string

// Handoff modes: restart tears the backends down and the successor boots
// afresh; adopt hands the running backends to the successor.
const (
	HandoffRestart HandoffMode = "restart"
	HandoffAdopt   HandoffMode = "adopt"
)

// HandoffArgs are OpHandoff's arguments.
type HandoffArgs struct {
	// To is the successor's executable; "" means our own, replaced on disk.
	To   string      `json:"to"`
	Mode HandoffMode `json:"mode"`
	// TimeoutNS bounds the whole handoff; 0 means one minute.
	TimeoutNS int64 `json:"timeout_ns,omitempty"`
}

// HandoffResult is what a successful handoff reports.
type HandoffResult struct {
	Mode      HandoffMode `json:"mode"`
	NewPID    int         `json:"new_pid"`
	ElapsedMS float64     `json:"elapsed_ms"`
}

// CommitArgs identify the successor committing (OpHandoffCommit): its PID
// and start time, checked before anything is let go.
type CommitArgs struct {
	PID   int    `json:"pid"`
	Start string `json:"start"`
}

// CommitResult is OpHandoffCommit's answer.
type CommitResult struct {
	Committed bool `json:"committed"`
}

// SkipArgs are OpUpdateSkip's arguments.
type SkipArgs struct {
	Version string `json:"version"`
}

// SkipResult is OpUpdateSkip's answer: the version no longer offered.
type SkipResult struct {
	Skipped string `json:"skipped"`
}

// Args decodes req's arguments as o's (none leave the zero value); bad
// arguments are errkind.ErrBadRequest.
func (o Op[Req, Res]) Args(req control.Request) (Req, error) {
	var args Req
	err := req.DecodeArgs(&args)
	return args, err
}

// Answer is what a handler returns for o: res as the result (nothing for
// None) and err, which, when set, is answered instead.
func (o Op[Req, Res]) Answer(res Res, err error) (any, error) {
	return o.result(res), err
}

// AnswerThen is Answer with an action to run once the answer is written
// (control.Deferred): err is answered if set, then still runs.
func (o Op[Req, Res]) AnswerThen(res Res, err error, then func()) (any, error) {
	return control.Deferred{Result: o.result(res), Err: err, Then: then}, nil
}

func (o Op[Req, Res]) result(res Res) any {
	if _, none := any(res).(None); none {
		return nil
	}
	return res
}

// Call sends o with args to the instance running on stateDir, for backend
// (see the operations), and returns its typed result. Errors are
// control.Call's: ErrNotRunning, or a *errkind.RemoteError matching its
// code's sentinel.
func (o Op[Req, Res]) Call(ctx context.Context, stateDir, backend string, args Req) (Res, error) {
	res, _, err := o.CallRaw(ctx, stateDir, backend, args)
	return res, err
}

// CallRaw is Call that also returns the result as the instance wrote it
// (what `--json` prints).
func (o Op[Req, Res]) CallRaw(ctx context.Context, stateDir, backend string, args Req) (Res, json.RawMessage, error) {
	var res Res
	req := control.Request{Op: o.Name, Backend: backend}
	if _, none := any(args).(None); !none {
		raw, err := json.Marshal(args)
		if err != nil {
			return res, nil, fmt.Errorf("control: %s: encode arguments: %w", o.Name, err)
		}
		req.Args = raw
	}
	raw, err := control.Call(ctx, stateDir, req)
	if err != nil {
		return res, nil, err
	}
	if _, none := any(res).(None); none || len(raw) == 0 {
		return res, raw, nil
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return res, raw, fmt.Errorf("control: unreadable answer to %s: %w", o.Name, err)
	}
	return res, raw, nil
}

// statusTimeout bounds one StatusOf: the instance answers from memory, on
// this machine.
const statusTimeout = time.Second

// StatusOf asks the instance running on stateDir for its status
// (control.ErrNotRunning when none listens there), within a second.
func StatusOf(ctx context.Context, stateDir string) (model.Status, error) {
	ctx, cancel := context.WithTimeout(ctx, statusTimeout)
	defer cancel()
	return OpStatus.Call(ctx, stateDir, "", None{})
}
