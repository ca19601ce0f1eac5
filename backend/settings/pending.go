package settings

// PendingRestart compares the settings the app started with and the
// settings saved now, and names (by JSON key) those that apply only when the
// app restarts: the backend list, start at login and the update settings
// apply at once. backends is true when one of them is given to a backend as
// it starts (its command, the shim's grace period, its open-file limit, a
// remote watchdog's disconnect grace), so the backends must restart to take
// it; the others (ready pattern, health path, the leak guard, the minimum
// orphan age, the ssh config file) are the launcher's, and a running
// backend can be handed to a new launcher as it is.
func PendingRestart(started, saved Settings) (keys []string, backends bool) {
	// The backend command is used only without a backend list.
	commandUsed := len(started.Backends) == 0 || len(saved.Backends) == 0
	keys = []string{} // none is an empty list, for the page
	for _, f := range []struct {
		key          string
		changed      bool
		needsBackend bool
	}{
		{"backend_command", commandUsed && started.BackendCommand != saved.BackendCommand, true},
		{"ready_regex", started.ReadyRegex != saved.ReadyRegex, false},
		{"health_path", started.HealthPath != saved.HealthPath, false},
		{"grace", started.Grace != saved.Grace, true},
		{"min_orphan_age", started.MinOrphanAge != saved.MinOrphanAge, false},
		{"sample_interval", started.SampleInterval != saved.SampleInterval, false},
		{"max_duplicate_children", started.MaxDuplicateChildren != saved.MaxDuplicateChildren, false},
		{"restart_on_fd_pressure", started.RestartOnFDPressure != saved.RestartOnFDPressure, false},
		{"nofile_soft_limit", !equalInt(started.NofileSoftLimit, saved.NofileSoftLimit), true},
		// The remote watchdog is given the grace as it starts.
		{"disconnect_grace", started.DisconnectGrace != saved.DisconnectGrace, true},
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
