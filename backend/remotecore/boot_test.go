//go:build unix

package remotecore

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"hermes-desktop/backend/transport"
	"hermes-desktop/contract/muxwire"
	"hermes-desktop/platform/cmdline"
)

// bootCore is the test's core for boots: as the real one does after the
// bootstrap's exec, it prints the Banner, then its arguments.
var bootCore = "#!/bin/sh\necho '" + muxwire.Banner + "'\nprintf 'arg %s\\n' \"$@\"\n"

// bootLocally runs the bootstrap as sshd would run the session's command
// (the one quoted line given to the login shell) with HOME home, drives
// Boot.Run over its stdio, and returns Run's error, the bytes sent on its
// stdin, and what came after (the core's output).
func bootLocally(t *testing.T, b *Boot, home string) (int64, string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", cmdline.JoinRemote(b.Command()))
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var sent atomic.Int64
	runErr := b.Run(ctx, out, &countingWriter{w: in, n: &sent})
	in.Close()
	rest, _ := io.ReadAll(out)
	_ = cmd.Wait()
	if runErr != nil {
		t.Logf("bootstrap stderr: %s", stderr.String())
	}
	return sent.Load(), string(rest), runErr
}

type countingWriter struct {
	w io.Writer
	n *atomic.Int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n.Add(int64(n))
	return n, err
}

// newBootCores is a cores directory whose core for every platform is
// bootCore (padded, so that an upload is not one read).
func newBootCores(t *testing.T) (home string, cores *Cores) {
	t.Helper()
	r, _ := newRemote(t)
	cores = coresOf(t, []byte(bootCore+strings.Repeat("#\n", 100<<10)))
	return r.home, cores
}

// TestBootUploadsOnceAndExecs: the first boot receives the missing core
// in the session (its gzip'd bytes, as shipped) and execs it; the second
// sends only its `core` line; both exec the core as the mux server.
func TestBootUploadsOnceAndExecs(t *testing.T) {
	home, cores := newBootCores(t)
	b := NewBoot(cores)
	sent, rest, err := bootLocally(t, b, home)
	if err != nil {
		t.Fatalf("first boot: %v", err)
	}
	in, ok := b.Installed()
	size := localSize(t, cores, in.Platform)
	if !ok || !in.Uploaded || !in.Muxed || sent < size {
		t.Fatalf("first boot: got %+v (%v), %d bytes sent, want an upload of %d bytes", in, ok, sent, size)
	}
	if want := muxwire.Banner + "\narg mux\n"; rest != want {
		t.Errorf("after the boot: got %q, want %q (the core exec'd as the mux server)", rest, want)
	}
	fi, err := os.Stat(filepath.Join(home, in.Path))
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("the core: %v, mode %v; want it there, 0700", err, fi)
	}
	sent, rest, err = bootLocally(t, b, home)
	if err != nil {
		t.Fatalf("second boot: %v", err)
	}
	if in, _ := b.Installed(); in.Uploaded || sent > 200 || !strings.HasPrefix(rest, muxwire.Banner+"\n") {
		t.Errorf("second boot: got %+v, %d bytes sent, then %q; want no upload and the core", in, sent, rest)
	}
	if got := in.Exec("watchdog-remote", "--x"); strings.Join(got, " ") != muxwire.Core+" watchdog-remote --x" {
		t.Errorf("Exec over the mux: got %q, want the core itself", got)
	}
}

// TestBootReplacesAlteredCore: a core there with another digest is
// replaced before it runs.
func TestBootReplacesAlteredCore(t *testing.T) {
	home, cores := newBootCores(t)
	b := NewBoot(cores)
	if _, _, err := bootLocally(t, b, home); err != nil {
		t.Fatal(err)
	}
	in, _ := b.Installed()
	writeFile(t, filepath.Join(home, in.Path), "#!/bin/sh\necho pwned\n", 0o700)
	_, rest, err := bootLocally(t, b, home)
	if in, _ := b.Installed(); err != nil || !in.Uploaded || !strings.HasPrefix(rest, muxwire.Banner+"\n") {
		t.Errorf("boot over an altered core: %v, %+v, then %q; want it uploaded again and run", err, in, rest)
	}
}

// TestBootRefusesUnsafeHome: a home its group may write is refused
// (ErrUnsafeHome, permanent: retrying cannot help), and nothing is
// written or run there.
func TestBootRefusesUnsafeHome(t *testing.T) {
	home, cores := newBootCores(t)
	chmod(t, home, 0o775)
	b := NewBoot(cores)
	_, rest, err := bootLocally(t, b, home)
	if !errors.Is(err, ErrUnsafeHome) || !transport.IsPermanent(err) {
		t.Errorf("boot in a group-writable home: got %v, want a permanent ErrUnsafeHome", err)
	}
	if rest != "" {
		t.Errorf("after a refusal: got %q, want nothing run", rest)
	}
	if _, err := os.Stat(filepath.Join(home, ".hermes-desktop")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("after a refusal: ~/.hermes-desktop: %v, want nothing written", err)
	}
}
