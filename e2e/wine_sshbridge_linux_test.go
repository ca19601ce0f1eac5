package e2e

// Remote hosts from the Windows build under Wine. Wine runs Windows
// programs as Linux processes but cannot give them a Linux program's
// pipes, so the Windows app cannot run this machine's ssh; instead it runs
// an ssh.exe of the test's own (internal/sshbridge's fakessh, built with
// GOOS=windows) that hands its argv and stdio over loopback TCP to a bridge
// in the test, which runs the Linux ssh with ControlMaster=no and
// ControlPath=none (Windows' ssh.exe has no multiplexing) against a real
// sshd (internal/sshtest). The app finds that ssh.exe as it finds the
// system's, on its PATH (WINEPATH puts the directory there); the remote is
// this machine, so the app uploads the Linux core of its own version
// (coretest.Dir of the Linux build: the lane builds both without ldflags).

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"hermes-desktop/backend/model"
	"hermes-desktop/backend/remotecore"
	"hermes-desktop/backend/settings"
	"hermes-desktop/internal/coretest"
	"hermes-desktop/internal/sshbridge"
	"hermes-desktop/internal/sshtest"
	"hermes-desktop/internal/testbin"
	"hermes-desktop/internal/waitfor"
)

// remoteGoneWait bounds how long a remote tree may outlive the Windows
// app's SIGKILL (the bound, as on Linux).
const remoteGoneWait = 5 * time.Second

// wineSSH gives a's processes the test's ssh.exe (in a directory of a's
// own, so that a.processes counts it) on their PATH, pointed at a bridge
// to srv, and returns the ssh.exe's Linux path and the bridge.
func wineSSH(t *testing.T, a *winApp, srv *sshtest.Server) (string, *sshbridge.Bridge) {
	t.Helper()
	dir := filepath.Join(a.dir, "openssh")
	must(t, os.MkdirAll(dir, 0o755))
	exe := sshbridge.BuildClient(t, "windows", dir)
	b, err := sshbridge.Listen(sshbridge.Options{Args: []string{"-F", srv.ClientConfig}, Logf: t.Logf})
	must(t, err)
	t.Cleanup(func() { _ = b.Close() }) // after a's checks: cleanups run last first
	a.env = append(a.env, b.Env(), "WINEPATH="+testbin.WinPath(dir))
	return exe, b
}

// ssh.exe under Wine, through the bridge, against the real sshd: its
// argv, stdin, stdout, stderr and exit status as the remote command gives
// them, over one authentication; SIGKILL of its Wine process ends the
// remote command (the bridge kills its ssh).
func TestWineSSHBridge(t *testing.T) {
	a := newWinApp(t)
	srv := sshtest.Start(t)
	exe, _ := wineSSH(t, a, srv)

	in := strings.Repeat("stdin line through Wine\n", 4096)
	// Words the remote shell joins back: quotes and a double space that
	// survive only if every argument crossed Windows' command line whole.
	cmd := a.command(exe, "-T", sshtest.Alias, "--", "cat;", "printf", `'<%s>'`, `'a  b'`, `"c'd"`, ">&2;", "exit", "7")
	var out, errOut bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(in), &out, &errOut
	_ = cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code != 7 {
		t.Errorf("exit status: got %d, want 7; stderr %q", code, errOut.String())
	}
	if out.String() != in {
		t.Errorf("stdout: got %d bytes, want stdin's %d back", out.Len(), len(in))
	}
	if want := `<a  b><c'd>`; !strings.Contains(errOut.String(), want) {
		t.Errorf("stderr: got %q, want %q", errOut.String(), want)
	}
	if n := srv.Authentications(); n != 1 {
		t.Errorf("authentications: got %d, want 1", n)
	}

	held := a.command(exe, "-T", sshtest.Alias, "--", "cat")
	stdin, err := held.StdinPipe() // held open: cat ends only with its session
	must(t, err)
	defer stdin.Close()
	must(t, held.Start())
	exited := make(chan struct{})
	go func() { _ = held.Wait(); close(exited) }() // the only waiter
	t.Cleanup(func() { _ = held.Process.Kill(); <-exited })
	waitfor.Until(t, wineReadyWait, "cat on the remote", func() bool { return remoteHas(srv, "cat") })
	must(t, held.Process.Signal(syscall.SIGKILL))
	if left := srv.WaitClean(remoteGoneWait); len(left) > 0 {
		t.Errorf("left on the remote %v after SIGKILL of ssh.exe: %v", remoteGoneWait, left)
	}
}

// remoteHas reports whether a process with exactly args runs on srv.
func remoteHas(srv *sshtest.Server, args string) bool {
	for _, p := range srv.Processes() {
		if p.Args == args {
			return true
		}
	}
	return false
}

// The Windows app with a remote dashboard on the real sshd, through its
// one ssh session (no multiplexing: ssh.exe has none): ready over one
// authentication, its page answering through the app's local forward;
// SIGKILL of the app's Wine process leaves nothing on the remote within
// remoteGoneWait, and nothing of the test's own under Wine.
func TestWineRemoteDashboard(t *testing.T) {
	a := newWinApp(t)
	srv := sshtest.Start(t)
	_, bridge := wineSSH(t, a, srv)
	cores := coretest.Dir(t, testbin.Path(t)) // the Linux core, for the Linux "remote"
	a.env = append(a.env, remotecore.CoresEnv+"="+testbin.WinPath(cores))
	must(t, os.MkdirAll(a.state, 0o700))
	must(t, settings.Save(a.state, settings.Settings{
		Backends:        []settings.Backend{{Name: "page", Kind: settings.KindDashboard, Host: sshtest.Alias}},
		DisconnectGrace: "30s",
	}))

	started := time.Now()
	l := a.startLauncher(a.exe)
	st := a.waitReady(l, 0)
	t.Logf("Windows app start to remote dashboard ready: %v", time.Since(started).Round(10*time.Millisecond))
	page := st.Backends[0]
	if page.Remote == nil || page.Remote.Connection != "connected" || page.PID == 0 || page.PageURL == "" {
		t.Fatalf("page: got remote %+v, pid %d, page %q; want connected, a remote PID and a page", page.Remote, page.PID, page.PageURL)
	}
	if page.Remote.Platform != "linux/amd64" {
		t.Errorf("remote platform: got %q, want linux/amd64 (the Linux core from the Windows app)", page.Remote.Platform)
	}
	checkPage(t, page)
	if n, sessions := srv.Authentications(), connecting(bridge.Runs()); n != 1 || len(sessions) != 1 {
		t.Errorf("authentications %d, ssh.exe sessions %q: want one of each (one session for the host)", n, sessions)
	}
	if !remoteRuns(srv, page.PID) {
		t.Errorf("the remote PID %d is not among the remote's processes: %v", page.PID, srv.Processes())
	}

	killed := time.Now()
	must(t, l.cmd.Process.Signal(syscall.SIGKILL))
	if left := srv.WaitClean(remoteGoneWait); len(left) > 0 {
		t.Fatalf("left on the remote %v after SIGKILL of the Windows app: %v", remoteGoneWait, left)
	}
	t.Logf("remote tree gone %v after SIGKILL of the Windows app", time.Since(killed).Round(10*time.Millisecond))
}

// connecting are the runs that connect: all but `ssh -G` (the app reads
// the configuration for a destination with it).
func connecting(runs [][]string) [][]string {
	var out [][]string
	for _, argv := range runs {
		if !slices.Contains(argv, "-G") {
			out = append(out, argv)
		}
	}
	return out
}

// checkPage GETs the dashboard's page through the local forward: HTML.
func checkPage(t *testing.T, b model.BackendStatus) {
	t.Helper()
	resp, err := http.Get(b.PageURL)
	if err != nil {
		t.Fatalf("the dashboard's page through the forward: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Errorf("page %s: got %d %s, want 200 text/html", b.PageURL, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
}

// remoteRuns reports whether pid is one of srv's processes.
func remoteRuns(srv *sshtest.Server, pid int) bool {
	for _, p := range srv.Processes() {
		if p.PID == pid {
			return true
		}
	}
	return false
}
