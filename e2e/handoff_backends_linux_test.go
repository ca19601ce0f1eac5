package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"hermes-desktop/backend/model"
	"hermes-desktop/backend/settings"
	"hermes-desktop/internal/testbin"
	"hermes-desktop/internal/waitfor"
)

// A handoff waits for the new instance's own word, not for the number of
// backends the old one started with: with backends added and one removed
// in config.json since start, a restart (Restart Hermes Desktop) or an
// adopt handoff (every update) once waited for the old count, timed out
// and rolled back (issue 31, item 1). Each mode: the new instance is in
// charge at once with the new list; the removed backend's tree is gone.
func TestHandoffAfterTheBackendsChanged(t *testing.T) {
	for _, mode := range []string{"adopt", "restart"} {
		t.Run(mode, func(t *testing.T) {
			l := startWithConfig(t, `{"backends": [{"name": "keep", "kind": "dashboard"}, {"name": "gone", "kind": "dashboard"}]}`)
			l.WaitReady(2, readyWait)
			st, _ := statusOf(t, l)
			kept := backendNamed(st, "keep")
			// Added and removed as the window's Add and Remove would save them.
			// Two where one was: the count the old instance started with
			// (2) is not the new one's (3).
			serve := l.Bin + " serve --host 127.0.0.1 --port 0"
			cfg := fmt.Sprintf(`{"backends": [{"name": "keep", "kind": "dashboard"}, {"name": "added", "kind": "custom", "command": %q}, {"name": "more", "kind": "custom", "command": %q}]}`,
				serve, serve)
			must(t, os.WriteFile(filepath.Join(l.StateDir, settings.File), []byte(cfg), 0o600))

			started := time.Now()
			out, errOut, code := l.CLI("handoff", "--to", copyBinary(t, l.Bin), "--mode", mode, "--timeout", "60s")
			took := time.Since(started)
			if code != 0 {
				t.Fatalf("handoff: exit %d after %s: %s%s", code, took, out, errOut)
			}
			if took > 20*time.Second {
				t.Errorf("the handoff took %s: it waited for something the new instance never says", took)
			}
			if !waitfor.Try(readyWait, func() bool {
				st, _ = statusOf(t, l)
				return names(st) == "added,keep,more" && allReady(st, 0)
			}) {
				t.Fatalf("after the handoff: %+v, want keep, added and more ready", st.Backends)
			}
			if st.Instance.PID == l.Cmd.Process.Pid {
				t.Fatal("the old instance is still in charge")
			}
			if k := backendNamed(st, "keep"); mode == "adopt" && (k.PID != kept.PID || k.Port != kept.Port) {
				t.Errorf("adopt changed the kept backend: pid %d port %d, want %d %d", k.PID, k.Port, kept.PID, kept.Port)
			}
			if r := countRoles(l.Tag); len(r.backends) != 3 || len(r.launchers) != 1 {
				t.Errorf("after the handoff: %+v, want one launcher and three backends (the removed one's tree gone)", r)
			}
			stopSuccessor(t, l)
		})
	}
}

// startWithConfig starts a launcher whose state dir holds config.json.
func startWithConfig(t *testing.T, config string) *testbin.Launcher {
	t.Helper()
	base := t.TempDir()
	state := filepath.Join(base, "state")
	must(t, os.MkdirAll(state, 0o700))
	must(t, os.WriteFile(filepath.Join(state, settings.File), []byte(config), 0o600))
	return testbin.Base(t, state, filepath.Join(base, "hermes-home"), testbin.Tag(t)).StartAnother("--grace", "2s")
}

func backendNamed(st model.Status, name string) model.BackendStatus {
	for _, b := range st.Backends {
		if b.Name == name {
			return b
		}
	}
	return model.BackendStatus{}
}

func names(st model.Status) string {
	var n []string
	for _, b := range st.Backends {
		n = append(n, b.Name)
	}
	slices.Sort(n)
	return strings.Join(n, ",")
}
