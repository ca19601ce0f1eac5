//go:build unix

package remotecore

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"hermes-desktop/platform/cmdline"
)

// shellRemote is a Remote that is this machine: it runs each command as
// sshd does, the one quoted line given to the user's shell (`sh -c`),
// with its own HOME, and counts the bytes it reads from stdin.
type shellRemote struct {
	home string
	path string       // PATH for the commands; "" is this process's
	sent atomic.Int64 // bytes read from stdin, over all commands
}

func (s *shellRemote) Run(ctx context.Context, timeout time.Duration, stdin io.Reader, argv ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", cmdline.JoinRemote(argv))
	path := s.path
	if path == "" {
		path = os.Getenv("PATH")
	}
	cmd.Env = []string{"HOME=" + s.home, "PATH=" + path}
	if stdin != nil {
		cmd.Stdin = &countingReader{r: stdin, n: &s.sent}
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.Bytes(), fmt.Errorf("%q: %w: %s", argv[0], err, strings.TrimSpace(stderr.String()))
	}
	return stdout.Bytes(), nil
}

type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// coreScript is the test's core: it prints its arguments, one a line.
const coreScript = "#!/bin/sh\nprintf 'core %s\\n' \"$@\"\n# padding so an upload is not a single read\n"

// newRemote makes a remote whose home has a space, quotes and shell
// syntax in its path, and a cores directory (version "1.0") whose core
// for every platform is coreScript.
func newRemote(t *testing.T) (*shellRemote, *Cores) {
	t.Helper()
	home := filepath.Join(t.TempDir(), `it's a "home" $(x) `+"`y`")
	if err := os.Mkdir(home, 0o755); err != nil {
		t.Fatal(err)
	}
	return &shellRemote{home: home}, coresOf(t, []byte(coreScript+strings.Repeat("#\n", 100<<10)))
}

// coresOf is a cores directory (version "1.0") whose core for every
// platform is core.
func coresOf(t *testing.T, core []byte) *Cores {
	t.Helper()
	dir := t.TempDir()
	sum := sha256.Sum256(core)
	var sums strings.Builder
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	if _, err := zw.Write(core); err != nil || zw.Close() != nil {
		t.Fatal(err)
	}
	for _, p := range Platforms {
		writeFile(t, filepath.Join(dir, fileName(p)+gzSuffix), gz.String(), 0o644)
		fmt.Fprintf(&sums, "%s  %s\n", hex.EncodeToString(sum[:]), fileName(p))
	}
	writeFile(t, filepath.Join(dir, SumsFile), sums.String(), 0o644)
	writeFile(t, filepath.Join(dir, VersionFile), "1.0\n", 0o644)
	cores, err := OpenCores(dir, "1.0")
	if err != nil {
		t.Fatal(err)
	}
	return cores
}

func writeFile(t *testing.T, path, data string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), mode); err != nil {
		t.Fatal(err)
	}
}

func install(t *testing.T, r Remote, cores *Cores) Installed {
	t.Helper()
	in, err := Install(context.Background(), r, cores, Options{})
	if err != nil {
		t.Fatalf("Install: %v", err)
	}
	return in
}

// localSize is the size of the gzip'd core Install uploads here.
func localSize(t *testing.T, cores *Cores, p Platform) int64 {
	t.Helper()
	c, err := cores.Core(p)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(c.Path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// TestInstallUploadsOnce: the first Install writes the core, private, at
// its per-version path; the second sends nothing.
func TestInstallUploadsOnce(t *testing.T) {
	r, cores := newRemote(t)
	in := install(t, r, cores)
	size := localSize(t, cores, in.Platform)
	if !in.Uploaded || r.sent.Load() != size {
		t.Fatalf("first Install: uploaded %v, %d bytes sent, want true, %d", in.Uploaded, r.sent.Load(), size)
	}
	want := fmt.Sprintf(".hermes-desktop/cores/1.0/%s-%s/hermes-desktop-core-%s", in.Platform.GOOS, in.Platform.GOARCH, in.Digest[:16])
	if in.Path != want {
		t.Errorf("Path: got %s, want %s", in.Path, want)
	}
	// The core and every directory of ours above it: this user's alone.
	for p := filepath.Join(r.home, in.Path); p != r.home; p = filepath.Dir(p) {
		fi, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: mode %v, want 0700", p, fi.Mode().Perm())
		}
	}
	again := install(t, r, cores)
	if again.Uploaded || again != (Installed{Platform: in.Platform, Path: in.Path, Digest: in.Digest}) || r.sent.Load() != size {
		t.Errorf("second Install: got %+v and %d bytes sent in all, want no upload (%d)", again, r.sent.Load(), size)
	}
	entries, _ := os.ReadDir(filepath.Dir(filepath.Join(r.home, in.Path)))
	if len(entries) != 1 {
		t.Errorf("core directory holds %d files, want 1 (no temporary file left)", len(entries))
	}
}

// TestInstallReplaces: a core altered, replaced by a link, or made
// not executable on the remote is uploaded again.
func TestInstallReplaces(t *testing.T) {
	for name, spoil := range map[string]func(path string) error{
		"tampered":  func(p string) error { return os.WriteFile(p, []byte("#!/bin/sh\necho impostor\n"), 0o700) },
		"truncated": func(p string) error { return os.Truncate(p, 10) },
		"symlink": func(p string) error {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			elsewhere := filepath.Join(filepath.Dir(p), "elsewhere")
			if err := os.WriteFile(elsewhere, data, 0o700); err != nil {
				return err
			}
			_ = os.Remove(p)
			return os.Symlink(elsewhere, p)
		},
		"not executable": func(p string) error { return os.Chmod(p, 0o600) },
	} {
		t.Run(name, func(t *testing.T) {
			r, cores := newRemote(t)
			in := install(t, r, cores)
			path := filepath.Join(r.home, in.Path)
			if err := spoil(path); err != nil {
				t.Fatal(err)
			}
			before := r.sent.Load()
			again := install(t, r, cores)
			if !again.Uploaded || r.sent.Load()-before != localSize(t, cores, in.Platform) {
				t.Errorf("got uploaded %v, %d bytes sent, want an upload", again.Uploaded, r.sent.Load()-before)
			}
			fi, err := os.Lstat(path)
			if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o700 {
				t.Fatalf("after the upload: %v, %v, want a regular file of mode 0700", fi, err)
			}
			out, err := r.Run(context.Background(), time.Minute, nil, again.Exec("x")...)
			if err != nil || string(out) != "core x\n" {
				t.Errorf("Exec: got %q, %v, want %q", out, err, "core x\n")
			}
		})
	}
}

// TestExecVerifies: Exec runs the core with its arguments intact, and
// refuses (126, nothing run) a file swapped after Install.
func TestExecVerifies(t *testing.T) {
	r, cores := newRemote(t)
	in := install(t, r, cores)
	args := []string{"serve", "a b", "it's", `"q"`, "$HOME", "", "`id`"}
	out, err := r.Run(context.Background(), time.Minute, nil, in.Exec(args...)...)
	var want strings.Builder
	for _, a := range args {
		fmt.Fprintf(&want, "core %s\n", a)
	}
	if err != nil || string(out) != want.String() {
		t.Fatalf("Exec: got %q, %v, want %q", out, err, want.String())
	}

	ran := filepath.Join(t.TempDir(), "impostor ran")
	impostor := fmt.Sprintf("#!/bin/sh\necho impostor\n: >%s\n", cmdline.JoinRemote([]string{ran}))
	writeFile(t, filepath.Join(r.home, in.Path), impostor, 0o700)
	out, err = r.Run(context.Background(), time.Minute, nil, in.Exec(args...)...)
	if exitCode(err) != exitNotOurs || len(out) != 0 {
		t.Errorf("Exec of a swapped core: got %q, %v, want exit %d and no output", out, err, exitNotOurs)
	}
	if _, statErr := os.Stat(ran); statErr == nil {
		t.Errorf("the swapped core ran")
	}
	if err != nil && !strings.Contains(err.Error(), "is not the core we uploaded") {
		t.Errorf("Exec of a swapped core: %v does not say why", err)
	}
}

// TestInstallUnsafeHome: a home anyone may write in gets nothing.
func TestInstallUnsafeHome(t *testing.T) {
	r, cores := newRemote(t)
	if err := os.Chmod(r.home, 0o777); err != nil {
		t.Fatal(err)
	}
	_, err := Install(context.Background(), r, cores, Options{})
	if !errors.Is(err, ErrUnsafeHome) {
		t.Fatalf("Install: got %v, want ErrUnsafeHome", err)
	}
	if _, statErr := os.Stat(filepath.Join(r.home, ".hermes-desktop")); statErr == nil || r.sent.Load() != 0 {
		t.Errorf("Install wrote to an unsafe home (%d bytes sent)", r.sent.Load())
	}
}

// TestInstallDamagedLocalCore: a shipped core that no longer matches
// SHA256SUMS is refused by the remote, named as ours, and leaves nothing.
func TestInstallDamagedLocalCore(t *testing.T) {
	r, cores := newRemote(t)
	for _, p := range Platforms {
		c, _ := cores.Core(p)
		writeFile(t, c.Path, "not gzip", 0o644)
	}
	_, err := Install(context.Background(), r, cores, Options{})
	if err == nil || !strings.Contains(err.Error(), "the local file unpacks to") {
		t.Fatalf("Install: got %v, want the local file named as damaged", err)
	}
	dir := filepath.Join(r.home, ".hermes-desktop", "cores", "1.0")
	platforms, _ := os.ReadDir(dir)
	for _, p := range platforms {
		if files, _ := os.ReadDir(filepath.Join(dir, p.Name())); len(files) != 0 {
			t.Errorf("%s holds %d files after a refused upload, want none", p.Name(), len(files))
		}
	}
}

// TestInstallShasum: where there is no sha256sum (macOS), shasum -a 256
// computes the digests; where there is no gzip, the core goes unpacked.
func TestInstallShasum(t *testing.T) {
	bin := t.TempDir()
	for _, tool := range []string{"sh", "uname", "cat", "mktemp", "mkdir", "chmod", "mv", "rm", "find", "sync", "shasum"} {
		p, err := exec.LookPath(tool)
		if err != nil {
			t.Skipf("no %s here", tool)
		}
		if err := os.Symlink(p, filepath.Join(bin, tool)); err != nil {
			t.Fatal(err)
		}
	}
	r, cores := newRemote(t)
	r.path = bin
	in := install(t, r, cores)
	if again := install(t, r, cores); !in.Uploaded || again.Uploaded {
		t.Errorf("got uploads %v then %v, want true then false", in.Uploaded, again.Uploaded)
	}
	if got, want := r.sent.Load(), int64(len(coreScript)+2*(100<<10)); got != want {
		t.Errorf("%d bytes sent, want %d (the core unpacked)", got, want)
	}
	out, err := r.Run(context.Background(), time.Minute, nil, in.Exec("ok")...)
	if err != nil || string(out) != "core ok\n" {
		t.Errorf("Exec: got %q, %v", out, err)
	}
}

// TestInstallPrunesOldVersions: an upload of a new version removes the
// cores of other versions but the two most recently written; a link, a
// file, a directory whose name is not a version and the current version
// stay.
func TestInstallPrunesOldVersions(t *testing.T) {
	r, cores := newRemote(t)
	root := filepath.Join(r.home, RemoteDir)
	old := time.Now().Add(-time.Hour)
	for i, v := range []string{"0.7", "0.8", "0.9", "0.9.1"} {
		dir := filepath.Join(root, v, "linux-amd64")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, "hermes-desktop-core-0123456789abcdef"), "old", 0o700)
		stamp := old.Add(time.Duration(i) * time.Minute) // 0.9.1 the newest
		if err := os.Chtimes(filepath.Join(root, v), stamp, stamp); err != nil {
			t.Fatal(err)
		}
	}
	elsewhere := t.TempDir()
	if err := os.Symlink(elsewhere, filepath.Join(root, "0.1")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "not a version"), 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, "0.2"), "a file", 0o600)
	install(t, r, cores)
	var left []string
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		left = append(left, e.Name())
	}
	want := []string{"0.1", "0.2", "0.9", "0.9.1", "1.0", "not a version"}
	if !slices.Equal(left, want) {
		t.Errorf("left in %s: %q, want %q", root, left, want)
	}
	if _, err := os.Stat(elsewhere); err != nil {
		t.Errorf("the link's target: %v", err)
	}
}
