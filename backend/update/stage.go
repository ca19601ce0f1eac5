package update

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"hermes-desktop/platform/proc"
)

// stagedPattern names a staged update next to its target: a hidden
// temporary name in the same directory, so the swap is a rename on one
// filesystem.
func stagedPattern(t Target) string { return stagedPrefix(t) + "*" }

func stagedPrefix(t Target) string { return "." + filepath.Base(t.Path) + ".update-" }

// Stage puts the verified artifact next to in.Target under a temporary
// name and smoke-tests it: its binary must answer `version --json` with
// version before anything changes. It returns the staged path (a file, or
// a bundle directory); on error nothing is left behind.
func Stage(ctx context.Context, artifact string, in Install, version string) (string, error) {
	removeLeftovers(in.Target)
	dir := filepath.Dir(in.Target.Path)
	var staged, exe string
	var err error
	if in.Target.Bundle {
		rel, rerr := filepath.Rel(in.Target.Path, in.Exe)
		if rerr != nil {
			return "", fmt.Errorf("update: %w", rerr)
		}
		if staged, err = os.MkdirTemp(dir, stagedPattern(in.Target)); err == nil {
			exe = filepath.Join(staged, rel)
			err = extractBundle(artifact, staged)
		}
	} else {
		staged, err = copyExecutable(artifact, dir, stagedPattern(in.Target))
		exe = staged
	}
	if err == nil {
		err = Smoke(ctx, exe, version)
	}
	if err != nil {
		if staged != "" {
			os.RemoveAll(staged) // our own temporary copy
		}
		return "", err
	}
	return staged, nil
}

// removeLeftovers removes the staged copies an interrupted update left, and
// the versions earlier swaps and restores moved aside while they still ran
// (leftoverPrefixes). One that still runs stays until the next time: on
// Windows the removal fails while it runs, which is harmless.
func removeLeftovers(t Target) {
	dir := filepath.Dir(t.Path)
	entries, _ := os.ReadDir(dir)
	prefixes := append([]string{stagedPrefix(t)}, leftoverPrefixes(t)...)
	for _, e := range entries {
		if slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(e.Name(), p) }) {
			os.RemoveAll(filepath.Join(dir, e.Name())) // only names our own swaps make
		}
	}
}

// copyExecutable copies src into a new temporary file in dir, mode 0755,
// synced to disk.
func copyExecutable(src, dir, pattern string) (string, error) {
	in, err := os.Open(src)
	if err != nil {
		return "", fmt.Errorf("update: %w", err)
	}
	defer in.Close()
	out, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return "", fmt.Errorf("update: stage in %s: %w", dir, classifyWrite(err))
	}
	name := out.Name()
	_, err = io.Copy(out, in)
	if err == nil {
		err = out.Chmod(0o755)
	}
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(name)
		return "", fmt.Errorf("update: stage %s: %w", name, classifyWrite(err))
	}
	return name, nil
}

// VersionInfo is what `hermes-desktop version --json` prints.
type VersionInfo struct {
	Version string `json:"version"`
	// Flavour is the build's WebKitGTK flavour (Flavour); "" for none.
	Flavour string `json:"flavour,omitempty"`
}

// Smoke runs exe's `version --json` and checks it answers version, and
// that it is a build of this one's flavour: a WebKitGTK 4.0 binary staged
// for a 4.1 install would start here only while both libraries happen to
// be installed.
func Smoke(ctx context.Context, exe, version string) error {
	out, err := runVersion(ctx, exe)
	if err != nil {
		return fmt.Errorf("%w: %s version --json: %w (output %q)", ErrSmoke, exe, err, strings.TrimSpace(string(out)))
	}
	var v VersionInfo
	if err := json.Unmarshal(bytes.TrimSpace(out), &v); err != nil {
		return fmt.Errorf("%w: %s version --json printed %q", ErrSmoke, exe, strings.TrimSpace(string(out)))
	}
	if strings.TrimPrefix(v.Version, "v") != strings.TrimPrefix(version, "v") {
		return fmt.Errorf("%w: the new binary says it is %q, the manifest says %q", ErrSmoke, v.Version, version)
	}
	if v.Flavour != Flavour {
		return fmt.Errorf("%w: the new binary is %s, this install is %s", ErrSmoke, flavourWords(v.Flavour), flavourWords(Flavour))
	}
	return nil
}

// runVersion runs `exe version --json` within 10 s. A freshly written file
// can be briefly "text file busy" while a fork elsewhere in this process
// still holds its descriptor (golang/go#22315): retried a few times.
func runVersion(ctx context.Context, exe string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for attempt := 0; ; attempt++ {
		cmd := exec.CommandContext(ctx, exe, "version", "--json")
		cmd.Env = append(os.Environ(), "HERMES_DESKTOP_SMOKE_TEST=1")
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
