package model

import (
	"time"

	"hermes-desktop/backend/reapreport"
	"hermes-desktop/backend/update"
)

// InstanceInfo describes the running launcher.
type InstanceInfo struct {
	PID      int    `json:"pid"`
	StateDir string `json:"state_dir"`
	Nonce    string `json:"nonce"`
	// UI is "gui" (the window) or "headless"; "mode" on the wire, as before.
	UI      string    `json:"mode"`
	Version string    `json:"version,omitempty"`
	Started time.Time `json:"started_at"`
	Shim    bool      `json:"shim"`
	// UpdateInstalled is set once our executable was replaced on disk (a
	// package upgrade): a handoff to it applies the update ("Restart to
	// apply"; restart_to_apply on the wire, as before).
	UpdateInstalled bool `json:"restart_to_apply,omitempty"`
	// Update is the self-update's state (see update.Info).
	Update *update.Info `json:"update,omitempty"`
}

// Status is what `status --json` prints.
type Status struct {
	Instance InstanceInfo    `json:"instance"`
	Backends []BackendStatus `json:"backends"`
	// BootReap is what the reap before the first spawn found; LastReap the
	// latest reap (on demand), when there was one since.
	BootReap *reapreport.Report `json:"boot_reap,omitempty"`
	LastReap *reapreport.Report `json:"last_reap,omitempty"`
	// Notices are things the user should know, in words.
	Notices []string `json:"notices,omitempty"`
}
