package model

import (
	"encoding/json"
	"testing"
	"time"

	"hermes-desktop/backend/leakguard"
)

// TestBackendStatusWire pins BackendStatus' JSON: its fields grouped into
// embedded structs (SpawnInfo, ContainmentInfo) must write the same keys in
// the same order as the flat struct did.
func TestBackendStatusWire(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	b := BackendStatus{Name: "n", State: StateReady, PID: 1, ShimPID: 2, Port: 3, URL: "u", Kind: "dashboard", PageURL: "p",
		Restarts: 4, Crashes: 5, Command: []string{"c"}, Builtin: true,
		SpawnInfo: SpawnInfo{Nonce: "x", Started: &at, ReadyAt: &at},
		LastError: "e", LastRestart: "r", LogTail: []string{"l"}, Tree: &leakguard.TreeSample{},
		ContainmentInfo: ContainmentInfo{Containment: "cgroup", ContainmentReason: "why", Cgroup: "/g"},
		Host:            "h", Remote: &RemoteStatus{Connection: "connected"}}
	got, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	tree, _ := json.Marshal(b.Tree)
	want := `{"name":"n","state":"ready","pid":1,"shim_pid":2,"port":3,"url":"u","kind":"dashboard","page_url":"p",` +
		`"restarts":4,"crashes":5,"command":["c"],"builtin":true,"nonce":"x","started_at":"2026-01-02T03:04:05Z",` +
		`"ready_at":"2026-01-02T03:04:05Z","last_error":"e","last_restart":"r","log_tail":["l"],"tree":` + string(tree) +
		`,"containment":"cgroup","containment_reason":"why","cgroup":"/g","host":"h","remote":{"connection":"connected"}}`
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestInstanceInfoWire pins the instance's keys: the Go names changed
// (UI, UpdateInstalled) while the page and older binaries read "mode" and
// "restart_to_apply".
func TestInstanceInfoWire(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	got, err := json.Marshal(InstanceInfo{PID: 1, StateDir: "/s", Nonce: "x", UI: "gui", Version: "v", Started: at, Shim: true, UpdateInstalled: true})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"pid":1,"state_dir":"/s","nonce":"x","mode":"gui","version":"v","started_at":"2026-01-02T03:04:05Z","shim":true,"restart_to_apply":true}`
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
