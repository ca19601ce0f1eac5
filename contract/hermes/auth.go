package hermes

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
)

// SessionTokenHeader is the request header that carries the session token
// on REST calls; the legacy form is "Authorization: Bearer <token>".
const SessionTokenHeader = "X-Hermes-Session-Token"

// PageTokenGlobal is the JavaScript global `hermes dashboard` sets to the
// session token in the page it serves (window.__HERMES_SESSION_TOKEN__ =
// "..."): scripts and clients of the dashboard find the token by it.
const PageTokenGlobal = "__HERMES_SESSION_TOKEN__"

// QueryToken is the query parameter that carries the session token where a
// browser can set no header: the WebSocket upgrade of WebSocketPath and
// downloads under FilesPrefix, and nowhere else.
const QueryToken = "token"

// Paths of the backend's HTTP API.
const (
	// APIPrefix starts every path the session token gates, public paths
	// aside.
	APIPrefix = "/api/"
	// HealthPath is the backend's health check. It is not public: a probe
	// sends the token.
	HealthPath = "/api/health"
	// StatusPath is public: older Hermes has no HealthPath, and a gate
	// whose token a launcher does not hold (a dashboard's own) lets it
	// through.
	StatusPath = "/api/status"
	// ConfigDefaultsPath is public.
	ConfigDefaultsPath = "/api/config/defaults"
	// ConfigSchemaPath is public.
	ConfigSchemaPath = "/api/config/schema"
	// ModelInfoPath is public.
	ModelInfoPath = "/api/model/info"
	// DashboardThemesPath is public.
	DashboardThemesPath = "/api/dashboard/themes"
	// CronFirePath is public (POST).
	CronFirePath = "/api/cron/fire"
	// WebSocketPath is the chat's WebSocket; the token may come in
	// QueryToken.
	WebSocketPath = "/api/ws"
	// FilesPrefix starts file downloads; the token may come in QueryToken.
	FilesPrefix = "/api/files/"
)

// PublicPaths returns the /api paths Hermes answers without the session
// token (its web server's public list); every other path under APIPrefix
// needs it.
func PublicPaths() []string {
	return []string{StatusPath, ConfigDefaultsPath, ConfigSchemaPath, ModelInfoPath, DashboardThemesPath, CronFirePath}
}

// NewSessionToken makes a session token as Hermes does
// (secrets.token_urlsafe(32)): 32 random bytes in unpadded base64url.
func NewSessionToken() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("hermes: session token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}
