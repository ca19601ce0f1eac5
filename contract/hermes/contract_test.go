package hermes

import (
	"encoding/base64"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestReadyRegexMatchesReadyLines: the default pattern finds the port in
// both ready lines, as printed, and in nothing else.
func TestReadyRegexMatchesReadyLines(t *testing.T) {
	re := regexp.MustCompile(ReadyRegex)
	for _, prefix := range []string{ServeReadyPrefix, DashboardReadyPrefix} {
		m := re.FindStringSubmatch(prefix + "41234")
		if m == nil || m[1] != "41234" {
			t.Errorf("%q: got %q, want port 41234", prefix, m)
		}
	}
	for _, line := range []string{"HERMES_GATEWAY_READY port=1", "HERMES_BACKEND_READY port=", "listening on 8080"} {
		if m := re.FindStringSubmatch(line); m != nil {
			t.Errorf("%q: got %q, want no match", line, m)
		}
	}
}

func TestLocalArgs(t *testing.T) {
	for _, c := range []struct {
		verb string
		want string
	}{
		{VerbServe, "serve --host 127.0.0.1 --port 0"},
		{VerbDashboard, "dashboard --no-open --host 127.0.0.1 --port 0"},
	} {
		if got := strings.Join(LocalArgs(c.verb), " "); got != c.want {
			t.Errorf("LocalArgs(%q): got %q, want %q", c.verb, got, c.want)
		}
	}
	if !IsLoopbackHost(LoopbackIP) {
		t.Errorf("LoopbackIP %q is not loopback", LoopbackIP)
	}
}

func TestPublicPaths(t *testing.T) {
	got := PublicPaths()
	for _, p := range got {
		if !strings.HasPrefix(p, APIPrefix) {
			t.Errorf("public path %q is not under %s", p, APIPrefix)
		}
	}
	if slices.Contains(got, HealthPath) {
		t.Errorf("%s is public; Hermes gates it", HealthPath)
	}
	if !slices.Contains(got, StatusPath) {
		t.Errorf("%s is not public; the health probe falls back to it without a token", StatusPath)
	}
	got[0] = "/changed"
	if PublicPaths()[0] == "/changed" {
		t.Error("PublicPaths returns the list itself, not a copy")
	}
}

func TestNewSessionToken(t *testing.T) {
	a, err := NewSessionToken()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewSessionToken()
	raw, err := base64.RawURLEncoding.DecodeString(a)
	if err != nil || len(raw) != 32 || a == b {
		t.Errorf("got %q and %q (%d bytes, %v), want two different 32-byte base64url tokens", a, b, len(raw), err)
	}
}

// TestSSHTokenPath: the path SSHTokenFile builds is one Hermes accepts,
// and the paths Hermes refuses are refused.
func TestSSHTokenPath(t *testing.T) {
	const home, id, nonce = "/home/u", "0123456789abcdef0123456789abcdef", "0011223344556677"
	p := SSHTokenFile(home, id, nonce)
	if p != "/home/u/.hermes/desktop-ssh/"+id+"/"+nonce+".token" {
		t.Errorf("SSHTokenFile: got %q", p)
	}
	if err := CheckSSHTokenPath(home, p); err != nil {
		t.Errorf("CheckSSHTokenPath(%q): %v", p, err)
	}
	for _, bad := range []string{
		".hermes/desktop-ssh/" + id + "/" + nonce + ".token",           // relative
		"/srv/hermes/desktop-ssh/" + id + "/" + nonce + ".token",       // another root (HERMES_HOME)
		"/home/u/.hermes/desktop-ssh/" + nonce + ".token",              // no ownership directory
		"/home/u/.hermes/desktop-ssh/" + id + "/x/" + nonce + ".token", // too deep
		"/home/u/.hermes/desktop-ssh/" + strings.ToUpper(id) + "/" + nonce + ".token",
		"/home/u/.hermes/desktop-ssh/" + id + "/" + nonce + ".txt",
		"/home/u/.hermes/desktop-ssh/" + id + "/" + nonce[:15] + ".token",
		"/home/u/.hermes/desktop-ssh/" + id + "/../" + id + "/" + nonce + ".token",
		"/home/u/.hermes/desktop-ssh",
	} {
		if err := CheckSSHTokenPath(home, bad); err == nil {
			t.Errorf("CheckSSHTokenPath(%q): accepted", bad)
		}
	}
	if !ValidSpawnNonce(nonce) || ValidSpawnNonce(id) || !ValidOwnershipID(id) || ValidOwnershipID(nonce) {
		t.Error("ValidSpawnNonce / ValidOwnershipID disagree with the lengths 16 and 32")
	}
}
