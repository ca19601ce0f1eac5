package settings

import (
	"cmp"
	"time"
)

// PendingRestart compares the settings the app started with and the
// settings saved now, and names (by JSON key) those that apply only when the
// app restarts: the backend list, start at login and the update settings
// apply at once. backends is true when one of them is given to a backend as
// it starts (its command, the shim's grace period, its open-file limit, a
// remote watchdog's disconnect grace), so the backends must restart to take
// it; the others (ready pattern, health path, the leak guard, the minimum
// orphan age, the ssh config file) are the launcher's, and a running
// backend can be handed to a new launcher as it is.
//
// An empty field is its default (defaults): a field saved as its default's
// value, or a duration written another way ("5000ms" for "5s"), is no
// change, and asks for no restart.
func PendingRestart(started, saved, defaults Settings) (keys []string, backends bool) {
	text := func(a, b, def string) bool { return cmp.Or(a, def) != cmp.Or(b, def) }
	duration := func(a, b, def string) bool {
		x, y := cmp.Or(a, def), cmp.Or(b, def)
		dx, errx := time.ParseDuration(x)
		dy, erry := time.ParseDuration(y)
		return x != y && (errx != nil || erry != nil || dx != dy)
	}
	nofile := func(a, b, def *int) bool {
		return !equalInt(cmp.Or(a, def), cmp.Or(b, def))
	}
	// The backend command is used only without a backend list.
	commandUsed := len(started.Backends) == 0 || len(saved.Backends) == 0
	keys = []string{} // none is an empty list, for the page
	for _, f := range []struct {
		key          string
		changed      bool
		needsBackend bool
	}{
		{"backend_command", commandUsed && text(started.BackendCommand, saved.BackendCommand, defaults.BackendCommand), true},
		{"ready_regex", text(started.ReadyRegex, saved.ReadyRegex, defaults.ReadyRegex), false},
		{"health_path", text(started.HealthPath, saved.HealthPath, defaults.HealthPath), false},
		{"grace", duration(started.Grace, saved.Grace, defaults.Grace), true},
		{"min_orphan_age", duration(started.MinOrphanAge, saved.MinOrphanAge, defaults.MinOrphanAge), false},
		{"sample_interval", duration(started.SampleInterval, saved.SampleInterval, defaults.SampleInterval), false},
		{"max_duplicate_children", started.MaxDuplicateChildren != saved.MaxDuplicateChildren, false},
		{"restart_on_fd_pressure", started.RestartOnFDPressure != saved.RestartOnFDPressure, false},
		{"nofile_soft_limit", nofile(started.NofileSoftLimit, saved.NofileSoftLimit, defaults.NofileSoftLimit), true},
		// The remote watchdog is given the grace as it starts.
		{"disconnect_grace", duration(started.DisconnectGrace, saved.DisconnectGrace, defaults.DisconnectGrace), true},
	} {
		if f.changed {
			keys = append(keys, f.key)
			backends = backends || f.needsBackend
		}
	}
	return keys, backends
}

func equalInt(a, b *int) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
