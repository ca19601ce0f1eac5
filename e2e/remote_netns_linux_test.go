package e2e

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"hermes-desktop/backend/model"
	"hermes-desktop/backend/settings"
	"hermes-desktop/contract/hermes"
	"hermes-desktop/internal/sshtest"
	"hermes-desktop/watchdog/netns"
	"hermes-desktop/watchdog/remotewd"
)

// otherAccount is the uid of "another account on the host" (nobody), as
// the remote reap's decoys use it.
const otherAccount = "65534"

// asOtherAccount runs curl as another account on the host (setpriv) and
// returns what it printed and whether it succeeded.
func asOtherAccount(t *testing.T, args ...string) (string, bool) {
	t.Helper()
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("no curl for the other account to try the backend with")
	}
	cmd := exec.Command("setpriv", append([]string{"--reuid=" + otherAccount, "--regid=" + otherAccount, "--clear-groups",
		curl, "-sS", "--max-time", "5"}, args...)...)
	out, err := cmd.CombinedOutput()
	return string(out), err == nil
}

// sharedHostApp is a remote app whose remote home other accounts may
// enter, as on a shared host (Debian's homes are 0755): what keeps them
// out is then ours alone.
func sharedHostApp(t *testing.T, flags ...string) (*remoteApp, model.BackendStatus) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("another account's view needs root here (setpriv)")
	}
	srv := sshtest.Start(t)
	must(t, os.Chmod(srv.Dir, 0o755))
	must(t, os.Chmod(srv.Home, 0o755))
	a := startRemoteAppOn(t, srv, "30s", flags, settings.Backend{Name: "page", Kind: settings.KindDashboard})
	b := a.remoteBackend(t, "page", 60*time.Second)
	if b.Remote == nil {
		t.Fatalf("page: no remote status: %+v", b)
	}
	return a, b
}

// fromHostLoopback fetches / from the remote port on the host's loopback,
// as any account there would (a curl-equivalent connect from the host's
// network namespace).
func fromHostLoopback(port int) (string, error) {
	c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	}}}
	resp, err := c.Get("http://127.0.0.1/")
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

// Where the remote kernel allows namespaces, a dashboard on a shared host
// is isolated: its page answers through the app's forward (to its
// socket), while another account can reach neither its port nor its
// socket, even with every directory above the socket's open, and so never
// reads its token; the card says only the user reaches it. Nothing is
// left after stop.
func TestRemoteDashboardIsolatedFromOtherAccounts(t *testing.T) {
	a, b := sharedHostApp(t)
	if b.Remote.Isolation != remotewd.IsolationNetns {
		if strings.Contains(b.Remote.IsolationReason, "refuses") {
			t.Skipf("this kernel refuses the namespace: %s", b.Remote.IsolationReason)
		}
		t.Fatalf("page: got isolation %q (%s), want netns", b.Remote.Isolation, b.Remote.IsolationReason)
	}
	resp, err := http.Get(b.PageURL)
	if err != nil {
		t.Fatalf("the page through the app's forward: %v", err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(page), hermes.PageTokenGlobal) {
		t.Fatalf("the page through the forward has no token (%d bytes): the forward does not reach the dashboard", len(page))
	}
	if got, err := fromHostLoopback(b.Remote.Port); err == nil {
		t.Errorf("the host's 127.0.0.1:%d answered (%.80q): every account there reaches the backend", b.Remote.Port, got)
	}
	if out, ok := asOtherAccount(t, "http://127.0.0.1:"+strconv.Itoa(b.Remote.Port)+"/"); ok || strings.Contains(out, hermes.PageTokenGlobal) {
		t.Errorf("another account's curl to port %d: got %v %.120q, want it refused", b.Remote.Port, ok, out)
	}
	// Every directory above the run's own opened, as a careless host may
	// have them: the run's 0700 directory and 0600 socket still keep the
	// other account out.
	root := filepath.Join(a.srv.Home, netns.Dir)
	must(t, os.Chmod(filepath.Dir(root), 0o755))
	must(t, os.Chmod(root, 0o755))
	sock := filepath.Join(root, filepath.Base(b.Remote.LockDir), netns.BackendSocket)
	if _, err := os.Lstat(sock); err != nil {
		t.Fatalf("the backend's socket: %v", err)
	}
	if out, ok := asOtherAccount(t, "--unix-socket", sock, "http://backend/"); ok || strings.Contains(out, hermes.PageTokenGlobal) {
		t.Errorf("another account's curl through %s: got %v %.120q, want it refused", sock, ok, out)
	}
	if b.Remote.IsolationReason != "" {
		t.Errorf("an isolated backend's reason: %q", b.Remote.IsolationReason)
	}
	stopAndCheck(t, a.l)
	if left := a.srv.WaitClean(10 * time.Second); len(left) > 0 {
		t.Errorf("left on the remote after stop: %v", left)
	}
	if _, err := os.Lstat(filepath.Dir(sock)); !os.IsNotExist(err) {
		t.Errorf("the run's namespace directory is still there (%v)", err)
	}
}

// With isolation off, the backend runs in the host's network: the status
// says so and why (the card: other accounts can reach port N), and it is
// true: another account's curl to that port reads the page and its token.
func TestRemoteDashboardNotIsolatedIsReachable(t *testing.T) {
	a, b := sharedHostApp(t, "--netns=off")
	if b.Remote.Isolation != remotewd.IsolationNone || !strings.Contains(b.Remote.IsolationReason, "turned off") {
		t.Errorf("page: got isolation %q (%q), want none, turned off", b.Remote.Isolation, b.Remote.IsolationReason)
	}
	out, ok := asOtherAccount(t, "http://127.0.0.1:"+strconv.Itoa(b.Remote.Port)+"/")
	if !ok || !strings.Contains(out, hermes.PageTokenGlobal) {
		t.Errorf("another account's curl to port %d: got %v %.200q, want the page with its token (what the card warns of)", b.Remote.Port, ok, out)
	}
	stopAndCheck(t, a.l)
}
