package protocol

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"hermes-desktop/backend/control"
	"hermes-desktop/backend/model"
	"hermes-desktop/backend/reap"
	"hermes-desktop/backend/settings"
	"hermes-desktop/backend/update"
	"hermes-desktop/contract/errkind"
	"hermes-desktop/contract/logs"
)

// opCase is one operation's round trip: the arguments a caller sends and
// the JSON they travel as, the result a handler answers and the JSON it
// travels as. The JSON is what the launcher and the CLI exchanged before
// the operations were typed (maps, anonymous structs): the wire must not
// change.
type opCase struct {
	name   string
	answer func(req control.Request) (any, error) // the handler's side
	call   func(t *testing.T, dir string)         // the caller's side, checking
}

func roundTrip[Req, Res any](op Op[Req, Res], backend string, args Req, argsJSON string, res Res, resJSON string) opCase {
	return opCase{
		name: op.Name,
		answer: func(req control.Request) (any, error) {
			if string(req.Args) != argsJSON || req.Backend != backend {
				return nil, fmt.Errorf("%w: got args %s for %q, want %s for %q", errkind.ErrBadRequest, req.Args, req.Backend, argsJSON, backend)
			}
			got, err := op.Args(req)
			if err != nil {
				return nil, err
			}
			if !reflect.DeepEqual(got, args) {
				return nil, fmt.Errorf("%w: decoded %+v, want %+v", errkind.ErrBadRequest, got, args)
			}
			return op.Answer(res, nil)
		},
		call: func(t *testing.T, dir string) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			got, raw, err := op.CallRaw(ctx, dir, backend, args)
			if err != nil {
				t.Fatalf("%s: %v", op.Name, err)
			}
			if string(raw) != resJSON {
				t.Errorf("%s: result on the wire: got %s, want %s", op.Name, raw, resJSON)
			}
			if !reflect.DeepEqual(got, res) {
				t.Errorf("%s: result: got %+v, want %+v", op.Name, got, res)
			}
		},
	}
}

// mustJSON is how the launcher answered before: its maps, marshalled.
func mustJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestRoundTrip sends every operation over a real control socket, with
// arguments, and decodes its typed result; the arguments and the result
// travel as the same JSON as the untyped maps did.
func TestRoundTrip(t *testing.T) {
	started := time.Date(2026, 12, 2, 7, 0, 0, 0, time.UTC)
	status := model.Status{
		Instance: model.InstanceInfo{PID: 42, StateDir: "/s", Nonce: "n", UI: "gui", Started: started, Shim: true},
		Backends: []model.BackendStatus{{Name: "hermes", State: model.StateReady, PID: 43, Port: 8642}},
		Notices:  []string{"hello"},
	}
	report := &reap.Report{DryRun: true}
	lines := []logs.Line{{Seq: 7, Time: started, Backend: "hermes", Stream: "stdout", Text: "ready"}}
	check := update.Check{Current: "1.0.0", Latest: "1.1.0", Available: true, Notes: "n"}
	applied := &update.Result{From: "1.0.0", To: "1.1.0", NewPID: 44, ElapsedMS: 12.5}
	handed := &HandoffResult{Mode: HandoffAdopt, NewPID: 45, ElapsedMS: 3}
	zero := int64(0)

	cases := []opCase{
		roundTrip(OpStatus, "", None{}, "", status, mustJSON(t, status)),
		roundTrip(OpRestart, "hermes", None{}, "", None{}, ""),
		roundTrip(OpStartBackend, "hermes", None{}, "", None{}, ""),
		roundTrip(OpStopBackend, "hermes", None{}, "", None{}, ""),
		roundTrip(OpAddBackend, "", settings.Backend{Name: "web", Kind: settings.KindCustom, Command: "srv"}, `{"name":"web","kind":"custom","command":"srv"}`, None{}, ""),
		roundTrip(OpRemoveBackend, "web", None{}, "", None{}, ""),
		roundTrip(OpStop, "", None{}, "", StopResult{Stopped: true}, mustJSON(t, map[string]bool{"stopped": true})),
		roundTrip(OpFocus, "", None{}, "", FocusResult{Focused: true, UI: "gui"}, mustJSON(t, map[string]any{"focused": true, "mode": "gui"})),
		roundTrip(OpReap, "", ReapArgs{DryRun: true, MinAge: &zero, Only: []int{12}}, `{"dry_run":true,"min_age_ns":0,"only":[12]}`, report, mustJSON(t, report)),
		roundTrip(OpLogs, "hermes", LogsArgs{After: 6, Max: 100}, `{"after":6,"max":100}`, lines, mustJSON(t, lines)),
		roundTrip(OpPage, "hermes", None{}, "", PageResult{URL: "http://127.0.0.1:9119/"}, mustJSON(t, map[string]string{"url": "http://127.0.0.1:9119/"})),
		roundTrip(OpOpen, "", None{}, "", PageResult{URL: "http://127.0.0.1:9119/"}, mustJSON(t, map[string]string{"url": "http://127.0.0.1:9119/"})),
		roundTrip(OpHandoff, "", HandoffArgs{To: "/new", Mode: HandoffAdopt, TimeoutNS: int64(time.Minute)}, `{"to":"/new","mode":"adopt","timeout_ns":60000000000}`, handed, `{"mode":"adopt","new_pid":45,"elapsed_ms":3}`),
		roundTrip(OpHandoffCommit, "", CommitArgs{PID: 45, Start: "123"}, `{"pid":45,"start":"123"}`, CommitResult{Committed: true}, mustJSON(t, map[string]bool{"committed": true})),
		roundTrip(OpUpdateCheck, "", None{}, "", check, mustJSON(t, check)),
		roundTrip(OpUpdateApply, "", None{}, "", applied, `{"from":"1.0.0","to":"1.1.0","new_pid":44,"elapsed_ms":12.5}`),
		roundTrip(OpUpdateSkip, "", SkipArgs{Version: "1.1.0"}, `{"version":"1.1.0"}`, SkipResult{Skipped: "1.1.0"}, mustJSON(t, map[string]string{"skipped": "1.1.0"})),
	}
	handlers := map[string]func(control.Request) (any, error){}
	for _, c := range cases {
		handlers[c.name] = c.answer
	}
	dir := serve(t, func(ctx context.Context, req control.Request) (any, error) {
		if h, ok := handlers[req.Op]; ok {
			return h(req)
		}
		return nil, fmt.Errorf("%w %q", errkind.ErrUnknownOp, req.Op)
	})
	for _, c := range cases {
		c.call(t, dir)
	}
	if len(cases) != 17 {
		t.Errorf("%d operations tried, want all 17", len(cases))
	}
}

// An operation's error travels with its kind, and a bad argument is the
// caller's mistake (bad-request), decoded by the Op on the handler's side.
func TestErrorsAndBadArgs(t *testing.T) {
	dir := serve(t, func(ctx context.Context, req control.Request) (any, error) {
		switch req.Op {
		case OpReap.Name:
			_, err := OpReap.Args(req)
			return nil, err
		case OpPage.Name:
			return OpPage.Answer(PageResult{}, fmt.Errorf("%w: no backend with a page is ready", errkind.ErrNotReady))
		}
		return nil, fmt.Errorf("%w %q", errkind.ErrUnknownOp, req.Op)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := control.Call(ctx, dir, control.Request{Op: OpReap.Name, Args: json.RawMessage(`{"dry_run":"yes"}`)}); !errors.Is(err, errkind.ErrBadRequest) {
		t.Errorf("bad reap args: got %v, want a bad request", err)
	}
	if _, err := OpPage.Call(ctx, dir, "", None{}); !errors.Is(err, errkind.ErrNotReady) {
		t.Errorf("page: got %v, want not ready", err)
	}
	if _, err := OpFocus.Call(ctx, dir, "", None{}); !errors.Is(err, errkind.ErrUnknownOp) {
		t.Errorf("focus: got %v, want an unknown operation", err)
	}
}

func serve(t *testing.T, h control.HandlerFunc) string {
	t.Helper()
	dir := t.TempDir()
	s, err := control.Listen(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Serve(ctx, h); close(done) }()
	t.Cleanup(func() { cancel(); s.Close(); <-done })
	return dir
}
