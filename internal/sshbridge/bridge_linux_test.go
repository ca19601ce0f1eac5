package sshbridge_test

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"hermes-desktop/internal/sshbridge"
	"hermes-desktop/internal/sshtest"
	"hermes-desktop/internal/waitfor"
	"hermes-desktop/platform/proc"
)

// The fakessh binary for Linux, built once for the package's tests.
var fakessh string

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	dir, err := os.MkdirTemp("", "fakessh-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	fakessh = filepath.Join(dir, "ssh")
	if out, err := exec.Command("go", "build", "-o", fakessh, "hermes-desktop/internal/sshbridge/fakessh").CombinedOutput(); err != nil {
		panic(string(out))
	}
	return m.Run()
}

// listen starts a bridge running ssh (a path) with args and closes it at
// the end.
func listen(t *testing.T, ssh string, args ...string) *sshbridge.Bridge {
	t.Helper()
	b, err := sshbridge.Listen(sshbridge.Options{SSH: ssh, Args: args, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b
}

// client is fakessh with args, pointed at b.
func client(b *sshbridge.Bridge, args ...string) *exec.Cmd {
	cmd := exec.Command(fakessh, args...)
	cmd.Env = append(os.Environ(), b.Env())
	return cmd
}

// standIn writes an executable script standing in for ssh: it prints its
// arguments NUL-terminated, and exits 3.
func standIn(t *testing.T) (path, ran string) {
	t.Helper()
	dir := t.TempDir()
	path, ran = filepath.Join(dir, "ssh"), filepath.Join(dir, "ran")
	script := "#!/bin/sh\n: >" + ran + "\nprintf '%s\\0' \"$@\"\nexit 3\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path, ran
}

// The bridge runs ssh with exactly the client's arguments after the
// forced options and its own, however they are spelled, and the client
// exits with ssh's status.
func TestBridgeArgv(t *testing.T) {
	ssh, _ := standIn(t)
	b := listen(t, ssh, "-F", "/etc/bridge config")
	args := []string{"-F", `C:\Users\a b\ssh config`, "", "ünï", `x'y"z\`, "-o", "ControlMaster=yes", "--", "host", "sh -c 'echo $HOME'"}
	cmd := client(b, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Fatalf("fakessh: %v (stderr %q), want exit status 3", err, stderr.String())
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	want := slices.Concat(sshbridge.Forced, []string{"-F", "/etc/bridge config"}, args)
	if strings.Join(got, "|") != strings.Join(want, "|") || len(got) != len(want) {
		t.Errorf("ssh's argv: got %q, want %q", got, want)
	}
}

// A connection that does not say a valid hello is closed without a word
// and nothing runs.
func TestBridgeRefusesBadHello(t *testing.T) {
	ssh, ran := standIn(t)
	b := listen(t, ssh)
	addr, secret, _ := strings.Cut(strings.TrimPrefix(b.Env(), sshbridge.EnvAddr+"="), " ")
	hello := func(v any) string {
		j, _ := json.Marshal(v)
		return string(j) + "\n"
	}
	many := make([]string, sshbridge.MaxArgs+1)
	for _, tc := range []struct{ name, send string }{
		{"wrong secret", hello(sshbridge.Hello{Secret: strings.Repeat("0", len(secret)), Argv: []string{"host"}})},
		{"no secret", hello(map[string]any{"argv": []string{"host"}})},
		{"unknown field", hello(map[string]any{"secret": secret, "argv": []string{"host"}, "path": "/bin/sh"})},
		{"NUL in an argument", hello(sshbridge.Hello{Secret: secret, Argv: []string{"a\x00b"}})},
		{"not UTF-8", `{"secret":"` + secret + `","argv":["` + "\xff" + `"]}` + "\n"},
		{"too many arguments", hello(sshbridge.Hello{Secret: secret, Argv: many})},
		{"two values", strings.TrimSuffix(hello(sshbridge.Hello{Secret: secret}), "\n") + ` {}` + "\n"},
		{"no line", "{\"secret\":"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if _, err := io.WriteString(c, tc.send); err != nil {
				t.Fatal(err)
			}
			if tc.name == "no line" {
				_ = c.(*net.TCPConn).CloseWrite()
			}
			_ = c.SetReadDeadline(time.Now().Add(20 * time.Second))
			if got, err := io.ReadAll(c); err != nil || len(got) != 0 {
				t.Errorf("answer: got %q, %v; want the connection closed without a word", got, err)
			}
			if _, err := os.Stat(ran); err == nil {
				t.Fatalf("ssh ran")
			}
		})
	}
}

// Through a real sshd: stdin in, stdout and stderr out as ssh gives them,
// the remote command's exit status, one authentication.
func TestBridgeRealSSH(t *testing.T) {
	b := listen(t, "ssh")
	srv := sshtest.Start(t)
	in := make([]byte, 1<<20) // many frames, binary
	if _, err := rand.Read(in); err != nil {
		t.Fatal(err)
	}
	cmd := client(b, "-F", srv.ClientConfig, "-T", "-o", "BatchMode=yes", sshtest.Alias, "--",
		"cat; echo to-stderr >&2; exit 7")
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 7 {
		t.Fatalf("fakessh: %v (stderr %q), want exit status 7", err, stderr.String())
	}
	if !bytes.Equal(out, in) {
		t.Errorf("stdout: got %d bytes, want the %d of stdin back", len(out), len(in))
	}
	if !strings.Contains(stderr.String(), "to-stderr\n") {
		t.Errorf("stderr: got %q, want to-stderr", stderr.String())
	}
	if n := srv.Authentications(); n != 1 {
		t.Errorf("authentications: got %d, want 1", n)
	}
	if left := srv.WaitClean(10 * time.Second); len(left) > 0 {
		t.Errorf("left on the remote: %v", left)
	}
}

// A client that dies (its connection drops) takes its ssh along, which
// ends the remote session: the remote command, whose stdin stayed open,
// is gone, and the bridge's ssh is collected.
func TestBridgeDropKillsRemote(t *testing.T) {
	b := listen(t, "ssh") // closed after srv stops: a failure here ends, not hangs
	srv := sshtest.Start(t)
	cmd := client(b, "-F", srv.ClientConfig, "-T", "-o", "BatchMode=yes", sshtest.Alias, "--", "cat")
	stdin, err := cmd.StdinPipe() // held open: cat ends only if its session does
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waited := false
	t.Cleanup(func() {
		if !waited {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	waitfor.Until(t, 20*time.Second, "cat on the remote", func() bool {
		for _, p := range srv.Processes() {
			if p.Args == "cat" {
				return true
			}
		}
		return false
	})
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait() // fakessh is named ssh too: collected, it is not counted below
	waited = true
	if left := srv.WaitClean(10 * time.Second); len(left) > 0 {
		t.Errorf("left on the remote after the client died: %v", left)
	}
	var sshs []proc.Process
	if !waitfor.Try(10*time.Second, func() bool {
		kids, _ := proc.DescendantsOf(os.Getpid())
		sshs = sshs[:0]
		for _, k := range kids {
			if k.Comm == "ssh" {
				sshs = append(sshs, k)
			}
		}
		return len(sshs) == 0
	}) {

		t.Errorf("the bridge's ssh is still there: %+v", sshs)
	}
}
