package remotecore

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"hermes-desktop/backend/ssh"
	"hermes-desktop/internal/sshtest"
)

// sshTestVersion is the version the test builds its core as: the core's
// `version --json` must print it back.
const sshTestVersion = "0.0.0-sshtest"

// countingRemote passes every command to a real Remote and counts the
// bytes its commands read from stdin.
type countingRemote struct {
	r    Remote
	sent atomic.Int64
}

func (c *countingRemote) Run(ctx context.Context, timeout time.Duration, stdin io.Reader, argv ...string) ([]byte, error) {
	if stdin != nil {
		stdin = &countingReader{r: stdin, n: &c.sent}
	}
	return c.r.Run(ctx, timeout, stdin, argv...)
}

// TestInstallOverSSH installs a real core, built here, through a real
// ssh.Host on a real sshd, and runs it there: the first Install uploads,
// the second sends nothing, the core's `version --json` answers through
// Exec, all over one authentication, and nothing is left running.
func TestInstallOverSSH(t *testing.T) {
	p := Platform{runtime.GOOS, runtime.GOARCH}
	if _, ok := platformOf(fileName(p)); !ok {
		t.Skipf("no core is built for %s, this machine's platform", p)
	}
	srv := sshtest.Start(t)
	cores, self := buildCores(t, p)
	// The core is this machine's hermes-desktop too: it runs the master's shim.
	h, err := ssh.New(ssh.Options{Destination: sshtest.Alias, ConfigFile: srv.ClientConfig, ControlDir: srv.Dir, Self: self})
	if err != nil {
		t.Fatalf("ssh.New: %v", err)
	}
	t.Cleanup(func() { _ = h.Close() }) // before the server's leftover check
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	r := &countingRemote{r: h}

	in, err := Install(ctx, r, cores, Options{})
	if err != nil {
		t.Fatalf("first Install: %v", err)
	}
	size := localSize(t, cores, p)
	if !in.Uploaded || in.Platform != p || r.sent.Load() != size {
		t.Fatalf("first Install: got %+v, %d bytes sent, want an upload for %s of %d bytes", in, r.sent.Load(), p, size)
	}
	if _, err := os.Stat(filepath.Join(srv.Home, in.Path)); err != nil {
		t.Errorf("the core is not in the remote home: %v", err)
	}
	again, err := Install(ctx, r, cores, Options{})
	if err != nil {
		t.Fatalf("second Install: %v", err)
	}
	if again.Uploaded || again.Path != in.Path || r.sent.Load() != size {
		t.Errorf("second Install: got %+v, %d bytes sent in all, want no upload (%d)", again, r.sent.Load(), size)
	}

	out, err := h.Run(ctx, time.Minute, nil, in.Exec("version", "--json")...)
	if err != nil {
		t.Fatalf("core version over ssh: %v", err)
	}
	var got struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(out, &got); err != nil || got.Version != sshTestVersion {
		t.Errorf("core version printed %q (%v), want version %q", out, err, sshTestVersion)
	}
	if n, c := srv.Authentications(), srv.Connections(); n != 1 || c != 1 {
		t.Errorf("authentications, connections: got %d, %d, want 1, 1\n%s", n, c, srv.LogText())
	}
}

// buildCores builds this module's core for p (as scripts/remote-cores.sh
// does, without cgo) into a cores directory of version sshTestVersion
// holding that one core, and the path of the built binary.
func buildCores(t *testing.T, p Platform) (*Cores, string) {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go toolchain to build a core: %v", err)
	}
	dir := t.TempDir()
	bin := filepath.Join(t.TempDir(), "core")
	cmd := exec.Command(goBin, "build", "-trimpath", "-ldflags", "-s -w -X main.version="+sshTestVersion, "-o", bin, "hermes-desktop")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+p.GOOS, "GOARCH="+p.GOARCH)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build the core: %v\n%s", err, out)
	}
	core, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	if _, err := zw.Write(core); err != nil || zw.Close() != nil {
		t.Fatalf("gzip the core: %v", err)
	}
	sum := sha256.Sum256(core)
	writeFile(t, filepath.Join(dir, fileName(p)+gzSuffix), gz.String(), 0o644)
	writeFile(t, filepath.Join(dir, SumsFile), hex.EncodeToString(sum[:])+"  "+fileName(p)+"\n", 0o644)
	writeFile(t, filepath.Join(dir, VersionFile), sshTestVersion+"\n", 0o644)
	cores, err := OpenCores(dir, sshTestVersion)
	if err != nil {
		t.Fatal(err)
	}
	return cores, bin
}
