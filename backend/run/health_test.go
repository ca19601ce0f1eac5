package run

import (
	"fmt"
	"hermes-desktop/backend/runspec"
	"hermes-desktop/contract/hermes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// healthy answers the default health path as a current Hermes does.
func healthy(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != runspec.DefaultHealthPath {
		http.NotFound(w, r)
		return
	}
	fmt.Fprint(w, `{"ok":true}`)
}

func TestProbeHealth(t *testing.T) {
	// gated answers like Hermes' auth middleware: /api/health needs the
	// token, /api/status is public.
	gated := func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == hermes.StatusPath:
			fmt.Fprint(w, `{"version":"x"}`)
		case r.Header.Get(hermes.SessionTokenHeader) != "secret":
			w.WriteHeader(http.StatusUnauthorized)
		default:
			fmt.Fprint(w, `{"ok":true}`)
		}
	}
	for _, tc := range []struct {
		name    string
		path    string
		token   string
		handler http.HandlerFunc
		want    string // "" means healthy
	}{
		{"gated, with the token", runspec.DefaultHealthPath, "secret", gated, ""},
		{"gated, without it: the public status", runspec.DefaultHealthPath, "", gated, ""},
		{"gated, 403 falls back too", runspec.DefaultHealthPath, "", func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != hermes.StatusPath {
				w.WriteHeader(http.StatusForbidden)
			}
		}, ""},
		{"gated and the status too", runspec.DefaultHealthPath, "", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusUnauthorized) }, "HTTP 401"},
		{"ok", runspec.DefaultHealthPath, "", healthy, ""},
		{"2xx without a body", "/custom", "", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }, ""},
		{"503", runspec.DefaultHealthPath, "", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) }, "HTTP 503"},
		{"ok false", runspec.DefaultHealthPath, "", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, `{"ok":false}`) }, `"ok": false`},
		{"default path falls back to /api/status", runspec.DefaultHealthPath, "", func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != hermes.StatusPath {
				http.NotFound(w, r)
			}
		}, ""},
		// A server that is not Hermes (python3 -m http.server): the error
		// says what to change, not only the code (issue 23, item 2).
		{"not Hermes: 404 at both", runspec.DefaultHealthPath, "", http.NotFound, "HTTP 404 Not Found: the server has no page at /api/health"},
		{"a custom path has no fallback", "/custom", "", func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != hermes.StatusPath {
				http.NotFound(w, r)
			}
		}, "HTTP 404"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.handler)
			t.Cleanup(srv.Close)
			err := probeHealth(t.Context(), srv.Client(), srv.URL, tc.path, tc.token)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("probeHealth: got %v, want healthy", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("probeHealth: got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}
