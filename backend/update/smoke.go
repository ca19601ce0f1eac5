package update

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"hermes-desktop/platform/proc"
)

// VersionInfo is what `hermes-desktop version --json` prints.
type VersionInfo struct {
	Version string `json:"version"`
	// Flavour is the build's WebKitGTK flavour (Flavour); "" for none.
	Flavour string `json:"flavour,omitempty"`
}

// CoresInfo is what `hermes-desktop remote-cores --json` prints: the cores
// directory the app installs on remote hosts from, and what it holds.
type CoresInfo struct {
	Dir     string `json:"dir"`
	Version string `json:"version"`
	// Platforms are "goos/goarch", each with its core's file in Dir.
	Platforms []string `json:"platforms"`
}

// coresEnv names a cores directory that wins over the one beside the
// executable (backend/remotecore.CoresEnv): the smoke test of the staged
// cores runs without it.
const coresEnv = "HERMES_DESKTOP_CORES"

// Smoke runs exe's `version --json` and checks it answers version, and
// that it is a build of this one's flavour: a WebKitGTK 4.0 binary staged
// for a 4.1 install would start here only while both libraries happen to
// be installed.
func Smoke(ctx context.Context, exe, version string) error {
	var v VersionInfo
	if err := runJSON(ctx, exe, &v, "version", "--json"); err != nil {
		return err
	}
	if !sameVersion(v.Version, version) {
		return fmt.Errorf("%w: the new binary says it is %q, the manifest says %q", ErrSmoke, v.Version, version)
	}
	if v.Flavour != Flavour {
		return fmt.Errorf("%w: the new binary is %s, this install is %s", ErrSmoke, flavourWords(v.Flavour), flavourWords(Flavour))
	}
	return nil
}

// SmokeCores runs exe's `remote-cores --json` and checks that it finds
// the cores beside it, of version: what the staged copy's remote backends
// will install on their hosts.
func SmokeCores(ctx context.Context, exe, version string) error {
	var c CoresInfo
	if err := runJSON(ctx, exe, &c, "remote-cores", "--json"); err != nil {
		return err
	}
	want := filepath.Join(filepath.Dir(exe), "cores")
	if !sameVersion(c.Version, version) || !samePath(c.Dir, want) || len(c.Platforms) == 0 {
		return fmt.Errorf("%w: the new binary's remote cores are %s's in %s (%d platforms); want %s's in %s",
			ErrSmoke, c.Version, c.Dir, len(c.Platforms), version, want)
	}
	return nil
}

func sameVersion(a, b string) bool { return strings.TrimPrefix(a, "v") == strings.TrimPrefix(b, "v") }

// samePath compares two paths with their links resolved where they can be.
func samePath(a, b string) bool {
	if ra, err := filepath.EvalSymlinks(a); err == nil {
		a = ra
	}
	if rb, err := filepath.EvalSymlinks(b); err == nil {
		b = rb
	}
	return filepath.Clean(a) == filepath.Clean(b)
}

// runJSON runs exe with args and decodes what it prints into v.
func runJSON(ctx context.Context, exe string, v any, args ...string) error {
	out, err := runSmoke(ctx, exe, args...)
	what := exe + " " + strings.Join(args, " ")
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && len(ee.Stderr) > 0 {
			out = append(out, ee.Stderr...)
		}
		return fmt.Errorf("%w: %s: %w (output %q)", ErrSmoke, what, err, strings.TrimSpace(string(out)))
	}
	if err := json.Unmarshal(bytes.TrimSpace(out), v); err != nil {
		return fmt.Errorf("%w: %s printed %q", ErrSmoke, what, strings.TrimSpace(string(out)))
	}
	return nil
}

// runSmoke runs `exe args...` within 10 s, without a cores directory of
// the environment's. A freshly written file can be briefly "text file
// busy" while a fork elsewhere in this process still holds its descriptor
// (golang/go#22315): retried a few times.
func runSmoke(ctx context.Context, exe string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	env := []string{"HERMES_DESKTOP_SMOKE_TEST=1"}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, coresEnv+"=") {
			env = append(env, kv)
		}
	}
	for attempt := 0; ; attempt++ {
		cmd := exec.CommandContext(ctx, exe, args...)
		cmd.Env = env
		out, err := proc.OutputChild(cmd)
		if err != nil && errors.Is(err, syscall.ETXTBSY) && attempt < 5 {
			if serr := sleepCtx(ctx, 20*time.Millisecond); serr != nil {
				return nil, serr
			}
			continue
		}
		return out, err
	}
}
