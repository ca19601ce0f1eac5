package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"hermes-desktop/backend/model"
)

// index.html goes out with the status of the moment in its head, so the
// first frame shows the backends; a status no text of which can end the
// script; every other asset is the next handler's.
func TestBootPageCarriesTheStatus(t *testing.T) {
	page := fstest.MapFS{"index.html": {Data: []byte("<!doctype html><html><head><title>x</title></head><body></body></html>")}}
	st := model.Status{Backends: []model.BackendStatus{{Name: "web", LastError: `</script><script>alert(1)</script>`}}}
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("asset " + r.URL.Path)) })
	h := bootPage(page, func() model.Status { return st })(next)
	for _, path := range []string{"/", "/index.html"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		body := rec.Body.String()
		if !strings.HasPrefix(body, "<!doctype html><html><head><script>window.__HERMES_BOOT__={") || !strings.Contains(body, `"name":"web"`) {
			t.Errorf("%s: %q, want the boot script first in the head", path, body)
		}
		if strings.Count(body, "</script>") != 1 || !strings.Contains(rec.Header().Get("Content-Type"), "text/html") {
			t.Errorf("%s: the status' text ends the script, or the type is not HTML (Wails injects its runtime only there): %q", path, body)
		}
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/assets/app.js", nil))
	if rec.Body.String() != "asset /assets/app.js" {
		t.Errorf("an asset: %q, want it from the next handler", rec.Body.String())
	}
}
