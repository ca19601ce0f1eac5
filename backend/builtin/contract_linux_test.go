package builtin_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"hermes-desktop/contract/hermes"
	"hermes-desktop/internal/testbin"
	"hermes-desktop/internal/waitfor"
)

// testToken is the session token the tests hand the backend through
// $HERMES_DASHBOARD_SESSION_TOKEN, as a launcher does.
const testToken = "test-session-token-0123456789abcdef"

// get sends one request and returns the status, the body and the headers.
func get(t *testing.T, port int, method, path string, header http.Header) (int, string, http.Header) {
	t.Helper()
	req, err := http.NewRequest(method, fmt.Sprintf("http://127.0.0.1:%d%s", port, path), nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), resp.Header
}

func detailOf(t *testing.T, body string) string {
	t.Helper()
	var v struct{ Detail string }
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("body %q is not JSON: %v", body, err)
	}
	return v.Detail
}

// TestGate checks Hermes' auth rule: every /api/* path outside the public
// list needs the session token, as a header or a Bearer credential; ?token=
// counts only for a WebSocket upgrade and a file download.
func TestGate(t *testing.T) {
	_, port := startServe(t, []string{hermes.EnvSessionToken + "=" + testToken})
	tok := http.Header{hermes.SessionTokenHeader: {testToken}}
	bearer := http.Header{"Authorization": {"Bearer " + testToken}}
	upgrade := http.Header{"Connection": {"Upgrade"}, "Upgrade": {"websocket"}, "Sec-Websocket-Version": {"13"}}
	q := "?token=" + testToken
	for _, tc := range []struct {
		name, method, path string
		header             http.Header
		want               int
	}{
		{"health without token", "GET", "/api/health", nil, 401},
		{"health with the header", "GET", "/api/health", tok, 200},
		{"health with Bearer", "GET", "/api/health", bearer, 200},
		{"health with a wrong header", "GET", "/api/health", http.Header{hermes.SessionTokenHeader: {testToken + "x"}}, 401},
		{"health with a wrong Bearer", "GET", "/api/health", http.Header{"Authorization": {"Bearer " + testToken[1:]}}, 401},
		{"health with the token but no Bearer scheme", "GET", "/api/health", http.Header{"Authorization": {testToken}}, 401},
		{"?token= refused on a normal API path", "GET", "/api/health" + q, nil, 401},
		{"unknown API path without token", "GET", "/api/sessions", nil, 401},
		{"unknown API path with token", "GET", "/api/sessions", tok, 404},
		{"?token= on a file download", "GET", "/api/files/notes.txt" + q, nil, 404},
		{"file download without token", "GET", "/api/files/notes.txt", nil, 401},
		{"?token= on the WebSocket upgrade", "GET", "/api/ws" + q, upgrade, 501},
		{"?token= on /api/ws without an upgrade", "GET", "/api/ws" + q, nil, 401},
		{"WebSocket upgrade without token", "GET", "/api/ws", upgrade, 401},
		{"public status", "GET", "/api/status", nil, 200},
		{"public config defaults", "GET", "/api/config/defaults", nil, 200},
		{"public config schema", "GET", "/api/config/schema", nil, 200},
		{"public model info", "GET", "/api/model/info", nil, 200},
		{"public dashboard themes", "GET", "/api/dashboard/themes", nil, 200},
		{"public cron fire", "POST", "/api/cron/fire", nil, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body, h := get(t, port, tc.method, tc.path, tc.header)
			if code != tc.want {
				t.Fatalf("%s %s: got %d %q, want %d", tc.method, tc.path, code, body, tc.want)
			}
			if ct := h.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type: got %q, want application/json", ct)
			}
			if code == 401 && detailOf(t, body) != "Unauthorized" {
				t.Errorf("401 body: got %q, want detail Unauthorized", body)
			}
		})
	}
}

// With --public-health, /api/health answers without the token; the rest of
// the API stays gated.
func TestPublicHealth(t *testing.T) {
	_, port := startServe(t, []string{hermes.EnvSessionToken + "=" + testToken}, "--public-health")
	if code, body, _ := get(t, port, "GET", "/api/health", nil); code != 200 {
		t.Errorf("/api/health without token: got %d %q, want 200", code, body)
	}
	if code, _, _ := get(t, port, "GET", "/api/sessions", nil); code != 401 {
		t.Errorf("/api/sessions without token: got %d, want 401", code)
	}
}

// serve is headless: every non-API path answers Hermes' 404 JSON.
func TestServeIsHeadless(t *testing.T) {
	_, port := startServe(t, nil)
	want := "Headless backend (hermes serve): web UI disabled — use `hermes dashboard`"
	for _, path := range []string{"/", "/chat", "/index.html", "/api"} {
		code, body, _ := get(t, port, "GET", path, nil)
		if code != 404 || detailOf(t, body) != want {
			t.Errorf("GET %s: got %d %q, want 404 with detail %q", path, code, body, want)
		}
	}
}

var injectedToken = regexp.MustCompile(`window\.__HERMES_SESSION_TOKEN__ = ("(?:[^"\\]|\\.)*");`)

// dashboard serves a page at / with the session token injected, escaped for
// its script, whatever the token holds; the page's token opens the API.
func TestDashboardPage(t *testing.T) {
	for _, tc := range []struct {
		name, envToken string
	}{
		{"token from the environment", testToken},
		{"token that needs escaping", `a"b</script><x>&'\`},
		{"random token", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var env []string
			if tc.envToken != "" {
				env = []string{hermes.EnvSessionToken + "=" + tc.envToken}
			}
			port := startBuiltin(t, "dashboard", env, "--no-open").port
			code, page, h := get(t, port, "GET", "/", nil)
			if code != 200 || !strings.HasPrefix(h.Get("Content-Type"), "text/html") {
				t.Fatalf("GET /: got %d %q, want 200 text/html", code, h.Get("Content-Type"))
			}
			for _, want := range []string{"<title>Hermes</title>", "Hermes (built-in backend)", "hermes dashboard", "/api/status", "/api/health"} {
				if !strings.Contains(page, want) {
					t.Errorf("page lacks %q", want)
				}
			}
			if got := h.Get("Cache-Control"); got != "no-store" {
				t.Errorf("Cache-Control: got %q, want no-store", got)
			}
			token := pageToken(t, page)
			checkToken(t, token, tc.envToken)
			if strings.Contains(page, "</script><x>") {
				t.Errorf("the token reached the page unescaped")
			}
			if code, _, _ := get(t, port, "GET", "/api/health", http.Header{hermes.SessionTokenHeader: {token}}); code != 200 {
				t.Errorf("/api/health with the page's token: got %d, want 200", code)
			}
			if code, _, _ := get(t, port, "GET", "/api/health", nil); code != 401 {
				t.Errorf("/api/health without token: got %d, want 401", code)
			}
		})
	}
}

func pageToken(t *testing.T, page string) string {
	t.Helper()
	m := injectedToken.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no injected token in the page")
	}
	var token string
	if err := json.Unmarshal([]byte(m[1]), &token); err != nil {
		t.Fatalf("injected token %s: %v", m[1], err)
	}
	return token
}

// checkToken: the page carries the environment's token, or else a fresh
// one of 32 random bytes in unpadded base64url.
func checkToken(t *testing.T, got, envToken string) {
	t.Helper()
	if envToken != "" {
		if got != envToken {
			t.Errorf("injected token: got %q, want %q", got, envToken)
		}
		return
	}
	if b, err := base64.RawURLEncoding.DecodeString(got); err != nil || len(b) != 32 {
		t.Errorf("random token %q: got %d bytes (%v), want 32 in base64url", got, len(b), err)
	}
}

func TestDashboardOtherPaths(t *testing.T) {
	port := startBuiltin(t, "dashboard", nil).port
	if code, body, _ := get(t, port, "GET", "/chat", nil); code != 404 || detailOf(t, body) != "Not Found" {
		t.Errorf("GET /chat: got %d %q, want 404 Not Found", code, body)
	}
	var status struct{ Mode string }
	_, body, _ := get(t, port, "GET", "/api/status", nil)
	if err := json.Unmarshal([]byte(body), &status); err != nil || status.Mode != "dashboard" {
		t.Errorf("status mode: got %q (%v), want dashboard", status.Mode, err)
	}
}

// --children-after starts the fault children after the READY line, not
// before: a test can crash the launcher between bind and children.
func TestChildrenAfter(t *testing.T) {
	p := startBuiltin(t, "serve", nil, "--spawn-children", "1", "--spawn-setsid-children", "1", "--children-after", "1s")
	t.Cleanup(func() { killTagged(p) })
	if n := len(statusChildren(t, p.port)); n != 0 {
		t.Errorf("children right after READY: got %d, want 0", n)
	}
	var children []int
	if !waitfor.Try(10*time.Second, func() bool { children = statusChildren(t, p.port); return len(children) >= 2 }) {
		t.Fatalf("children after 10 s: got %v, want 2", children)
	}
}

func statusChildren(t *testing.T, port int) []int {
	t.Helper()
	var v struct{ Children []int }
	_, body, _ := get(t, port, "GET", "/api/status", nil)
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("status %q: %v", body, err)
	}
	return v.Children
}

// killTagged stops the backend and then the children it started: they
// carry the test's random tag, so nothing else can be among them.
func killTagged(p builtinProc) {
	_ = p.cmd.Process.Kill()
	_ = p.cmd.Wait()
	for _, pid := range testbin.Tagged(p.tag) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

func TestFlagErrors(t *testing.T) {
	for _, args := range [][]string{
		{"serve", "--no-open"}, // a dashboard flag
		{"dashboard", "--children-after", "-1s"},
		{"dashboard", "--port", "70000"},
		{"serve", "extra"},
	} {
		cmd := exec.Command(testbin.Path(t), args...)
		cmd.Env = testbin.NewEnv(testbin.Tag(t), t.TempDir())
		out, _ := cmd.CombinedOutput()
		if code := cmd.ProcessState.ExitCode(); code != 2 {
			t.Errorf("%v: got exit %d (%q), want 2", args, code, out)
		}
	}
}
