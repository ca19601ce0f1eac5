package builtin

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net/http"
	"os"
	"strings"

	"hermes-desktop/contract/hermes"
)

// sessionToken returns the token of the SSH token file when there is one
// (read and removed, as Hermes does), else $HERMES_DASHBOARD_SESSION_TOKEN
// (hermes.EnvSessionToken), or else a new one (hermes.NewSessionToken):
// one per process, as Hermes.
func sessionToken(sshTokenFile string) (string, error) {
	if sshTokenFile != "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("builtin: %w", err)
		}
		return hermes.ReadSSHTokenFile(home, sshTokenFile)
	}
	if v := os.Getenv(hermes.EnvSessionToken); v != "" {
		return v, nil
	}
	token, err := hermes.NewSessionToken()
	if err != nil {
		return "", fmt.Errorf("builtin: %w", err)
	}
	return token, nil
}

// gate answers 401 JSON to every /api/* request outside the public list
// (hermes.PublicPaths; not /api/health, for which Electron's readiness
// probe sends the token) that does not carry the session token, and passes
// the rest to next.
type gate struct {
	digest [sha256.Size]byte // of the token: every comparison is of equal length
	public map[string]bool
	next   http.Handler
}

func newGate(token string, publicHealth bool, next http.Handler) *gate {
	g := &gate{digest: sha256.Sum256([]byte(token)), public: make(map[string]bool), next: next}
	for _, p := range hermes.PublicPaths() {
		g.public[p] = true
	}
	if publicHealth {
		g.public[hermes.HealthPath] = true
	}
	return g
}

func (g *gate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// r.URL.Path is the decoded path the mux routes on; a path that is not
	// clean (/x/../api/health) gets a redirect from the mux to its clean
	// form, which comes back through here.
	p := r.URL.Path
	if !strings.HasPrefix(p, hermes.APIPrefix) || g.public[p] || g.authorized(r) {
		g.next.ServeHTTP(w, r)
		return
	}
	writeJSONStatus(w, http.StatusUnauthorized, detail("Unauthorized"))
}

// authorized reports whether r carries the token in the header, as a
// Bearer credential or, for a WebSocket upgrade or a file download only, in
// ?token= (browsers can set no header there).
func (g *gate) authorized(r *http.Request) bool {
	if g.matches(r.Header.Get(hermes.SessionTokenHeader)) {
		return true
	}
	if v, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && g.matches(v) {
		return true
	}
	return queryTokenAllowed(r) && g.matches(r.URL.Query().Get(hermes.QueryToken))
}

// matches compares in constant time: hashing first makes both sides the
// same length, so not even the token's length leaks.
func (g *gate) matches(candidate string) bool {
	if candidate == "" {
		return false
	}
	d := sha256.Sum256([]byte(candidate))
	return subtle.ConstantTimeCompare(d[:], g.digest[:]) == 1
}

// queryTokenAllowed: ?token= is for the two requests a browser cannot add
// a header to, the WebSocket upgrade of GET /api/ws and a file download
// under /api/files/. Anywhere else a token in the URL would end up in logs
// and history, so it is refused.
func queryTokenAllowed(r *http.Request) bool {
	switch {
	case r.URL.Path == hermes.WebSocketPath:
		return r.Method == http.MethodGet && isWebSocketUpgrade(r)
	case strings.HasPrefix(r.URL.Path, hermes.FilesPrefix):
		return r.Method == http.MethodGet || r.Method == http.MethodHead
	}
	return false
}

func isWebSocketUpgrade(r *http.Request) bool {
	return headerHasToken(r.Header, "Connection", "upgrade") && headerHasToken(r.Header, "Upgrade", "websocket")
}

// headerHasToken reports whether a comma-separated header lists token (any case).
func headerHasToken(h http.Header, name, token string) bool {
	for _, v := range h.Values(name) {
		for _, part := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(part), token) {
				return true
			}
		}
	}
	return false
}
