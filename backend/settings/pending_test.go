package settings

import (
	"slices"
	"testing"
)

func TestPendingRelaunch(t *testing.T) {
	four, five := 4096, 8192
	list := []Backend{{Name: "a", Kind: KindCustom, Command: "x"}}
	for _, c := range []struct {
		name           string
		started, saved Settings
		keys           []string
		backends       bool
	}{
		{"nothing changed", Settings{Grace: "5s"}, Settings{Grace: "5s"}, []string{}, false},
		{"applied at once", Settings{}, Settings{StartAtLogin: true, UpdateFeed: "https://x", Backends: list}, []string{}, false},
		{"launcher settings", Settings{}, Settings{SampleInterval: "2s", MinOrphanAge: "5m", ReadyRegex: "up", HealthPath: "/h"},
			[]string{"ready_regex", "health_path", "min_orphan_age", "sample_interval"}, false},
		{"grace", Settings{Grace: "5s"}, Settings{Grace: "3s"}, []string{"grace"}, true},
		{"open-file limit", Settings{NofileSoftLimit: &four}, Settings{NofileSoftLimit: &five}, []string{"nofile_soft_limit"}, true},
		{"command without a list", Settings{BackendCommand: "a"}, Settings{BackendCommand: "b"}, []string{"backend_command"}, true},
		// Read by each connection made from now on (Launcher.SettingsSaved).
		{"ssh config file", Settings{}, Settings{SSHConfig: "/home/u/.ssh/alt"}, nil, false},
		{"disconnect grace", Settings{DisconnectGrace: "30s"}, Settings{DisconnectGrace: "10s"}, []string{"disconnect_grace"}, true},
		{"command beside a list: unused", Settings{BackendCommand: "a", Backends: list}, Settings{BackendCommand: "b", Backends: list}, []string{}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			keys, backends := PendingRelaunch(c.started, c.saved, Settings{})
			if !slices.Equal(keys, c.keys) || backends != c.backends {
				t.Errorf("got %q, %v; want %q, %v", keys, backends, c.keys, c.backends)
			}
		})
	}
}

// A field saved as its default's value is no change (issue 31, item 6:
// after Reset to defaults every backend was asked to restart).
func TestPendingRelaunchReadsEmptyAsTheDefault(t *testing.T) {
	four := 4096
	defaults := Settings{Grace: "5s", MinOrphanAge: "3m", SampleInterval: "5s", NofileSoftLimit: &four, DisconnectGrace: "30s",
		ReadyRegex: "READY port=(\\d+)", HealthPath: "/api/health"}
	saved := defaults
	saved.Grace = "5000ms"
	if keys, backends := PendingRelaunch(Settings{}, saved, defaults); len(keys) != 0 || backends {
		t.Errorf("every field at its default: got %q, %v; want nothing pending", keys, backends)
	}
	saved.Grace = "6s"
	if keys, backends := PendingRelaunch(Settings{}, saved, defaults); !slices.Equal(keys, []string{"grace"}) || !backends {
		t.Errorf("grace changed: got %q, %v", keys, backends)
	}
}
