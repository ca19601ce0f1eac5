package model

import (
	"context"
	"encoding/json"
	"hermes-desktop/backend/control"
	"hermes-desktop/backend/reap"
	"hermes-desktop/backend/update"
	"time"
)

// InstanceInfo describes the running launcher.
type InstanceInfo struct {
	PID      int       `json:"pid"`
	StateDir string    `json:"state_dir"`
	Nonce    string    `json:"nonce"`
	Mode     string    `json:"mode"`
	Version  string    `json:"version,omitempty"`
	Started  time.Time `json:"started_at"`
	Shim     bool      `json:"shim"`
	// RestartToApply is set once our executable was replaced on disk (a
	// package upgrade): a handoff to it applies the update.
	RestartToApply bool `json:"restart_to_apply,omitempty"`
	// Update is the self-update's state (see update.Info).
	Update *update.Info `json:"update,omitempty"`
}

// Status is what `status --json` prints.
type Status struct {
	Instance InstanceInfo    `json:"instance"`
	Backends []BackendStatus `json:"backends"`
	// BootReap is what the reap before the first spawn found; LastReap the
	// latest reap (on demand), when there was one since.
	BootReap *reap.Report `json:"boot_reap,omitempty"`
	LastReap *reap.Report `json:"last_reap,omitempty"`
	// Notices are things the user should know, in words.
	Notices []string `json:"notices,omitempty"`
}

// ReapArgs are the arguments of the reap operation.
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

// LogsArgs are the arguments of the logs operation.
type LogsArgs struct {
	After uint64 `json:"after"`
	Max   int    `json:"max"`
}

// statusTimeout bounds one status request: the instance answers from
// memory, on this machine.
const statusTimeout = time.Second

// StatusOf asks the instance running on stateDir for its status over the
// control socket (control.ErrNotRunning when none listens there).
func StatusOf(ctx context.Context, stateDir string) (Status, error) {
	ctx, cancel := context.WithTimeout(ctx, statusTimeout)
	defer cancel()
	var st Status
	res, err := control.Call(ctx, stateDir, control.Request{Op: control.OpStatus})
	if err == nil {
		err = json.Unmarshal(res, &st)
	}
	return st, err
}
