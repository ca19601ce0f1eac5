//go:build unix

package wsl

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"hermes-desktop/backend/transport"

	"hermes-desktop/internal/waitfor"
)

// fakeWSL stands in for wsl.exe: it checks the options Args writes and
// WSL_UTF8, then execs what follows --exec, as wsl.exe does inside the
// distribution.
const fakeWSL = `#!/bin/sh
[ "$WSL_UTF8" = 1 ] || { echo "fake wsl: WSL_UTF8 is not 1" >&2; exit 254; }
while [ $# -gt 0 ]; do
	case $1 in
	--distribution) [ "$2" = test-distro ] || { echo "fake wsl: distro $2" >&2; exit 254; }; shift 2 ;;
	--cd) [ "$2" = "~" ] || { echo "fake wsl: --cd $2" >&2; exit 254; }; shift 2 ;;
	--exec) shift; exec "$@" ;;
	*) echo "fake wsl: unexpected $1" >&2; exit 254 ;;
	esac
done
echo "fake wsl: no --exec" >&2; exit 254
`

func fakeTransport(t *testing.T) *Transport {
	t.Helper()
	path := filepath.Join(t.TempDir(), "wsl.exe")
	if err := os.WriteFile(path, []byte(fakeWSL), 0o755); err != nil {
		t.Fatal(err)
	}
	tr, err := New(Options{Distro: "test-distro", WSL: path})
	if err != nil {
		t.Fatal(err)
	}
	if st := tr.Status(); st.State != transport.Connected {
		t.Fatalf("Status: got %v, want connected", st)
	}
	t.Cleanup(func() { tr.Close() })
	return tr
}

func TestRun(t *testing.T) {
	tr := fakeTransport(t)
	ctx := context.Background()
	odd := `a b 'c' "d" $(touch /nonexistent/x) ; \`
	out, err := tr.Run(ctx, 10*time.Second, nil, "printf", "%s|", odd, "")
	if err != nil || string(out) != odd+"||" {
		t.Errorf("Run printf: got %q, %v; want the arguments untouched", out, err)
	}
	out, err = tr.Run(ctx, 10*time.Second, strings.NewReader("from stdin"), "cat")
	if err != nil || string(out) != "from stdin" {
		t.Errorf("Run cat: got %q, %v", out, err)
	}
	_, err = tr.Run(ctx, 10*time.Second, nil, "sh", "-c", "echo why >&2; exit 3")
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 || !strings.Contains(err.Error(), "why") {
		t.Errorf("Run of a failing command: got %v, want exit status 3 and its stderr", err)
	}
}

// TestRunTimeout: a command that hangs is killed where it runs when its
// timeout ends, not only our wsl.exe.
func TestRunTimeout(t *testing.T) {
	if _, err := exec.LookPath("timeout"); err != nil {
		t.Skip("no timeout(1) here")
	}
	tr := fakeTransport(t)
	pidFile := filepath.Join(t.TempDir(), "pid")
	start := time.Now()
	_, err := tr.Run(context.Background(), time.Second, nil, "sh", "-c", `echo $$ >"$1"; exec sleep 60`, "sh", pidFile)
	if !errors.Is(err, transport.ErrTimeout) {
		t.Fatalf("Run sleep 60 with a 1 s timeout: got %v, want ErrTimeout", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Run returned after %v, want about 1 s", d)
	}
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	if pid <= 0 {
		t.Fatalf("pid file holds %q", data)
	}
	if !waitfor.Try(5*time.Second, func() bool { return syscall.Kill(pid, 0) != nil }) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("the timed-out command (pid %d) still runs", pid)
	}
}

// TestStart: a channel's stdin and stdout are the command's, and closing
// stdin ends it (the remote watchdog's lifeline).
func TestStart(t *testing.T) {
	tr := fakeTransport(t)
	ch, err := tr.Start(context.Background(), "cat")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(ch.Stdin, "ping\n"); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(ch.Stdout).ReadString('\n')
	if err != nil || line != "ping\n" {
		t.Errorf("read back %q, %v", line, err)
	}
	ch.Stdin.Close()
	if rest, err := io.ReadAll(ch.Stdout); err != nil || len(rest) != 0 {
		t.Errorf("after stdin closed: read %q, %v; want EOF", rest, err)
	}
	if err := ch.Wait(); err != nil {
		t.Errorf("Wait: %v", err)
	}

	// Kill ends a channel whose command does not read its stdin.
	ch, err = tr.Start(context.Background(), "sleep", "60")
	if err != nil {
		t.Fatal(err)
	}
	if err := ch.Kill(); err != nil {
		t.Fatal(err)
	}
	_, _ = io.ReadAll(ch.Stdout)
	if err := ch.Wait(); err == nil {
		t.Error("Wait after Kill: got nil, want the kill's status")
	}
}
