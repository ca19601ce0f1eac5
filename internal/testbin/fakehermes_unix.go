//go:build unix

package testbin

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The fake hermes' contract, for the tests that drive it, beside Hermes'
// own (contract/hermes): the fake reads hermes.EnvGatewayLockDir (unset,
// ${XDG_STATE_HOME:-$HOME/.local/state}/hermes/gateway-locks) and exits
// with hermes.ExitRefused when it refuses. The script below is a stand-in
// for Hermes, so it spells those as Hermes does.
const (
	// HostRecordName is the host record of the dashboard role in that
	// directory: {"pid":N,"port":P}.
	HostRecordName = "host-dashboard.json"
	// AlreadyRunningPrefix starts the line `hermes dashboard` prints when it
	// attaches to a live host instead of starting a server; the URL
	// http://127.0.0.1:PORT/ follows.
	AlreadyRunningPrefix = "Hermes dashboard is already running at "
	// FakeRefuseEnv, set to 1, makes the fake's `hermes dashboard` refuse to
	// start and exit with hermes.ExitRefused.
	FakeRefuseEnv = "HERMES_FAKE_REFUSE"
)

// fakeHermesScript is the fake `hermes`, POSIX sh; @BIN@ becomes the
// shell-quoted path of the built hermes-desktop.
const fakeHermesScript = `#!/bin/sh
# A fake hermes for hermes-desktop's tests (internal/testbin.FakeHermes):
# "hermes serve ARGS" and "hermes dashboard ARGS" exec the built-in backend,
# so the PID stays the one the caller started. "hermes dashboard" first
# emulates Hermes' attach rule (DESIGN.md, "Hermes interop contract").
bin=@BIN@
case ${1:-} in
serve)
	shift
	exec "$bin" serve "$@"
	;;
dashboard)
	shift
	if [ "${HERMES_FAKE_REFUSE:-}" = 1 ]; then
		echo "hermes dashboard: refusing to start (HERMES_FAKE_REFUSE=1)" >&2
		exit 78
	fi
	dir=${HERMES_GATEWAY_LOCK_DIR:-${XDG_STATE_HOME:-$HOME/.local/state}/hermes/gateway-locks}
	if [ -f "$dir/host-dashboard.json" ]; then
		rec=$(tr -d '\r\n' < "$dir/host-dashboard.json")
		pid=$(printf '%s\n' "$rec" | sed -n 's/.*"pid"[[:space:]]*:[[:space:]]*\([0-9][0-9]*\).*/\1/p')
		port=$(printf '%s\n' "$rec" | sed -n 's/.*"port"[[:space:]]*:[[:space:]]*\([0-9][0-9]*\).*/\1/p')
		# kill -0 sends nothing: it only asks whether the host is alive.
		# PID 0 would ask about our own process group, so it never counts.
		if [ -n "$pid" ] && [ -n "$port" ] && [ "$pid" -gt 0 ] && kill -0 "$pid" 2>/dev/null; then
			echo "Hermes dashboard is already running at http://127.0.0.1:$port/"
			exit 0
		fi
	fi
	exec "$bin" dashboard "$@"
	;;
*)
	echo "hermes (fake for hermes-desktop tests): unsupported command: ${1:-<none>}" >&2
	exit 2
	;;
esac
`

// FakeHermes writes an executable `hermes` into a fresh temp dir and
// returns the dir, to put first on PATH. The script (POSIX sh) execs
// `hermes serve ARGS` and `hermes dashboard ARGS` as the built binary's
// `serve ARGS` and `dashboard ARGS`, so the PID the caller started is the
// backend's.
//
// Before starting a dashboard it emulates Hermes' attach rule (DESIGN.md,
// "Hermes interop contract"): when $HERMES_GATEWAY_LOCK_DIR/host-dashboard.json
// (else ${XDG_STATE_HOME:-$HOME/.local/state}/hermes/gateway-locks/...) holds
// {"pid":N,"port":P} and process N is alive, it prints
// "Hermes dashboard is already running at http://127.0.0.1:P/" and exits 0
// without starting a server. With HERMES_FAKE_REFUSE=1 it refuses instead
// and exits 78 (hermes.ExitRefused).
//
// Unlike Hermes, it attaches even when HERMES_DESKTOP=1 and a session token
// mark the caller as a desktop (Hermes would then start its own backend):
// that is what lets a launcher's "found, not crashed" path be tested.
func FakeHermes(t testing.TB) (dir string) {
	t.Helper()
	bin := Path(t)
	dir = t.TempDir()
	script := strings.Replace(fakeHermesScript, "@BIN@", shQuote(bin), 1)
	if err := os.WriteFile(filepath.Join(dir, "hermes"), []byte(script), 0o755); err != nil {
		t.Fatalf("write fake hermes: %v", err)
	}
	return dir
}

// shQuote quotes s for sh: inside single quotes nothing is special but the
// quote itself.
func shQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// HostRecord is the part of Hermes' host record the fake reads.
type HostRecord struct {
	PID  int `json:"pid"`
	Port int `json:"port"`
}

// WriteHostRecord writes lockDir/host-dashboard.json (temp file, then
// rename, so the fake never reads half a record), creating lockDir 0700.
func WriteHostRecord(lockDir string, rec HostRecord) error {
	if err := os.MkdirAll(lockDir, 0o700); err != nil {
		return fmt.Errorf("testbin: host record: %w", err)
	}
	data, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("testbin: host record: %w", err)
	}
	path := filepath.Join(lockDir, HostRecordName)
	if err := os.WriteFile(path+".tmp", data, 0o600); err != nil {
		return fmt.Errorf("testbin: host record: %w", err)
	}
	if err := os.Rename(path+".tmp", path); err != nil {
		return fmt.Errorf("testbin: host record: %w", err)
	}
	return nil
}
