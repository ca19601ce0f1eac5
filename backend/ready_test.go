package backend

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// healthy answers the default health path as a current Hermes does.
func healthy(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != DefaultHealthPath {
		http.NotFound(w, r)
		return
	}
	fmt.Fprint(w, `{"ok":true}`)
}

func TestProbeHealth(t *testing.T) {
	for _, tc := range []struct {
		name    string
		path    string
		handler http.HandlerFunc
		want    string // "" means healthy
	}{
		{"ok", DefaultHealthPath, healthy, ""},
		{"2xx without a body", "/custom", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }, ""},
		{"503", DefaultHealthPath, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) }, "HTTP 503"},
		{"ok false", DefaultHealthPath, func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, `{"ok":false}`) }, `"ok": false`},
		{"default path falls back to /api/status", DefaultHealthPath, func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != fallbackHealthPath {
				http.NotFound(w, r)
			}
		}, ""},
		{"a custom path has no fallback", "/custom", func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != fallbackHealthPath {
				http.NotFound(w, r)
			}
		}, "HTTP 404"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.handler)
			t.Cleanup(srv.Close)
			err := probeHealth(t.Context(), srv.Client(), srv.URL, tc.path)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("probeHealth: got %v, want healthy", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("probeHealth: got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}
