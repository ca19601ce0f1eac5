package main

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"net/http"
	"runtime"
	"strconv"

	"hermes-desktop/backend/model"
)

// The first status travels with the page: index.html is served with the
// status of the moment it was asked for, so the window shows the backends
// as soon as its first frame, without waiting for the bindings and two
// round trips through them (Status, Environment) after WebKit's first
// paint (issue 31: state shown in 1.5-2.3x the blank window's time).

// bootData is what the page reads from window.__HERMES_BOOT__.
type bootData struct {
	Status   model.Status `json:"status"`
	Platform string       `json:"platform"` // runtime.GOOS, for the page's quoting
}

// bootPage serves page's index.html with the boot data in its head; every
// other request goes on to next (the embedded assets). Wails injects its
// runtime into the HTML this returns, as into any index.html.
func bootPage(page fs.FS, status func() model.Status) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodGet || (r.URL.Path != "/" && r.URL.Path != "/index.html") {
				next.ServeHTTP(w, r)
				return
			}
			index, err := fs.ReadFile(page, "index.html")
			if err != nil {
				next.ServeHTTP(w, r)
				return
			}
			body := withBoot(index, bootData{Status: status(), Platform: runtime.GOOS})
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
			_, _ = w.Write(body)
		})
	}
}

// withBoot puts the boot data first in index's head. json.Marshal escapes
// <, > and &, so no text of the status can end the script.
func withBoot(index []byte, d bootData) []byte {
	data, err := json.Marshal(d)
	if err != nil {
		return index
	}
	script := append(append([]byte("<script>window.__HERMES_BOOT__="), data...), ";</script>"...)
	at := bytes.Index(index, []byte("<head>"))
	if at < 0 {
		return append(script, index...)
	}
	at += len("<head>")
	return append(append(append([]byte(nil), index[:at]...), script...), index[at:]...)
}
