//go:build unix

package remotecore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestInstallGroupWritableHome: a home its group may write in gets
// nothing, like one anyone may write in.
func TestInstallGroupWritableHome(t *testing.T) {
	for _, mode := range []os.FileMode{0o770, 0o775, 0o757} {
		r, cores := newRemote(t)
		if err := os.Chmod(r.home, mode); err != nil {
			t.Fatal(err)
		}
		_, err := Install(context.Background(), r, cores, Options{})
		if !errors.Is(err, ErrUnsafeHome) || !strings.Contains(err.Error(), "writable by its group or by others") {
			t.Errorf("home of mode %v: Install got %v, want ErrUnsafeHome saying why", mode, err)
		}
		if _, statErr := os.Stat(filepath.Join(r.home, ".hermes-desktop")); statErr == nil || r.sent.Load() != 0 {
			t.Errorf("home of mode %v: Install wrote there (%d bytes sent)", mode, r.sent.Load())
		}
	}
}

// chainSpoils make one step of the path from the home to an installed core
// unsafe; dir is the step, core the core.
var chainSpoils = map[string]func(t *testing.T, home, dir, core string){
	"group-writable home": func(t *testing.T, home, _, _ string) { chmod(t, home, 0o770) },
	".hermes-desktop group-writable": func(t *testing.T, home, _, _ string) {
		chmod(t, filepath.Join(home, ".hermes-desktop"), 0o770)
	},
	"cores world-writable":        func(t *testing.T, home, _, _ string) { chmod(t, filepath.Join(home, RemoteDir), 0o707) },
	"platform dir group-writable": func(t *testing.T, _, dir, _ string) { chmod(t, dir, 0o770) },
	"version dir a link": func(t *testing.T, _, dir, _ string) {
		version := filepath.Dir(dir)
		moved := version + ".real"
		if err := os.Rename(version, moved); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(moved, version); err != nil {
			t.Fatal(err)
		}
	},
	"platform dir another user's": func(t *testing.T, _, dir, _ string) { chown(t, dir) },
	".hermes-desktop another user's": func(t *testing.T, home, _, _ string) {
		chown(t, filepath.Join(home, ".hermes-desktop"))
	},
	"core group-writable": func(t *testing.T, _, _, core string) { chmod(t, core, 0o770) },
	"core another user's": func(t *testing.T, _, _, core string) { chown(t, core) },
}

func chmod(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

// chown gives path to another user: only root can.
func chown(t *testing.T, path string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("giving a file to another user needs root")
	}
	const nobody = 65534
	if err := os.Lchown(path, nobody, nobody); err != nil {
		t.Fatal(err)
	}
}

// TestExecRefusesUnsafeChain: a core whose digest still matches is not run
// when the home, a directory between it and the core, or the core itself
// is a link, another user's, or writable by its group or others: the exec
// exits with a status ExecRefusal maps to ErrUnsafeHome and says why. The
// same core runs when the chain is safe.
func TestExecRefusesUnsafeChain(t *testing.T) {
	for name, spoil := range chainSpoils {
		t.Run(name, func(t *testing.T) {
			r, cores := newRemote(t)
			in := install(t, r, cores)
			core := filepath.Join(r.home, in.Path)
			ctx := context.Background()
			if out, err := r.Run(ctx, time.Minute, nil, in.Exec("safe")...); err != nil || string(out) != "core safe\n" {
				t.Fatalf("Exec in a safe chain: got %q, %v, want %q", out, err, "core safe\n")
			}
			spoil(t, r.home, filepath.Dir(core), core)
			out, err := r.Run(ctx, time.Minute, nil, in.Exec("unsafe")...)
			if len(out) != 0 || !errors.Is(ExecRefusal(exitCode(err)), ErrUnsafeHome) {
				t.Fatalf("Exec: got %q, %v, want no output and a refusal", out, err)
			}
			if !strings.Contains(err.Error(), "not run") && !strings.Contains(err.Error(), "home") {
				t.Errorf("Exec: %v does not say why", err)
			}
		})
	}
}

// TestInstallRefusesUnsafeDirs: Install's check refuses an unsafe
// directory between the home and the core (an upload would write through
// it) and uploads again over a core that is not safe.
func TestInstallRefusesUnsafeDirs(t *testing.T) {
	for name, spoil := range chainSpoils {
		t.Run(name, func(t *testing.T) {
			r, cores := newRemote(t)
			in := install(t, r, cores)
			core := filepath.Join(r.home, in.Path)
			spoil(t, r.home, filepath.Dir(core), core)
			again, err := Install(context.Background(), r, cores, Options{})
			if strings.HasPrefix(name, "core ") {
				if err != nil || !again.Uploaded {
					t.Errorf("Install: got %+v, %v, want the core uploaded again", again, err)
				}
				return
			}
			if !errors.Is(err, ErrUnsafeHome) {
				t.Errorf("Install: got %+v, %v, want ErrUnsafeHome", again, err)
			}
		})
	}
}
