package builtin

import (
	"encoding/json"
	"net/http"
	"os"
	"time"
)

func (s *server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/health", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"ok": true, "version": Version, "pid": os.Getpid()})
	})
	mux.HandleFunc("GET /api/status", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		children := append([]int(nil), s.children...)
		leaked := len(s.leaked)
		s.mu.Unlock()
		writeJSON(w, map[string]any{
			"ok":         true,
			"version":    Version,
			"pid":        os.Getpid(),
			"uptime_s":   time.Since(s.started).Seconds(),
			"children":   children,
			"leaked_fds": leaked,
		})
	})
	return mux
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
