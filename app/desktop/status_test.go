package desktop

import (
	"testing"

	"hermes-desktop/backend/model"
)

// TestStatusLine: the tray's first line for every state of one backend,
// none, and several (where an attached external Hermes counts as ready).
func TestStatusLine(t *testing.T) {
	one := func(b model.BackendStatus) model.Status { return model.Status{Backends: []model.BackendStatus{b}} }
	for _, tc := range []struct {
		name string
		st   model.Status
		want string
	}{
		{"none", model.Status{}, "No backend"},
		{"ready", one(model.BackendStatus{Name: "a", State: model.StateReady, Port: 4001}), "Backend ready on :4001"},
		{"starting", one(model.BackendStatus{Name: "a", State: model.StateStarting}), "Backend starting…"},
		{"restarting", one(model.BackendStatus{Name: "a", State: model.StateRestarting, Restarts: 3}), "Backend restarting (3 so far)…"},
		{"failed", one(model.BackendStatus{Name: "a", State: model.StateFailed}), "Backend failed: show the window for details"},
		{"external", one(model.BackendStatus{Name: "a", State: model.StateExternal, Port: 9119}), "Using the Hermes already running on :9119"},
		{"stopped", one(model.BackendStatus{Name: "a", State: model.StateStopped}), "Backend stopped"},
		{"several", model.Status{Backends: []model.BackendStatus{
			{Name: "a", State: model.StateReady, Port: 4001},
			{Name: "b", State: model.StateFailed},
			{Name: "c", State: model.StateExternal, Port: 9119},
			{Name: "d", State: model.StateStarting},
		}}, "1 of 4 backends failed"}, // the window's header's words (issue 31, item 9)
		{"several, one restarting", model.Status{Backends: []model.BackendStatus{
			{Name: "a", State: model.StateStopped},
			{Name: "b", State: model.StateRestarting},
		}}, "0 of 2 ready, 1 restarting…"},
		{"several, all ready", model.Status{Backends: []model.BackendStatus{
			{Name: "a", State: model.StateReady}, {Name: "b", State: model.StateExternal},
		}}, "2 backends ready"},
		{"several, all stopped", model.Status{Backends: []model.BackendStatus{
			{Name: "a", State: model.StateStopped}, {Name: "b", State: model.StateStopped},
		}}, "All 2 backends stopped"},
		{"several, some stopped", model.Status{Backends: []model.BackendStatus{
			{Name: "a", State: model.StateStopped}, {Name: "b", State: model.StateReady},
		}}, "1 of 2 backends ready"},
	} {
		if got := StatusLine(tc.st); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}
