package builtin

import (
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"time"

	"hermes-desktop/contract/hermes"
)

// headlessDetail is what `hermes serve` answers on every non-API path.
const headlessDetail = "Headless backend (hermes serve): web UI disabled — use `hermes dashboard`"

// detail is the error body FastAPI (and so Hermes) answers with.
type detail string

func (d detail) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]string{"detail": string(d)})
}

// routes is the API behind the session-token gate, then what the mode
// serves outside /api/.
func (s *server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+hermes.HealthPath, s.handleHealth)
	mux.HandleFunc("GET "+hermes.StatusPath, s.handleStatus)
	s.routeStubs(mux)
	if s.opts.Verb == VerbDashboard {
		mux.HandleFunc("GET /{$}", s.handlePage)
	}
	mux.HandleFunc("/", s.handleNotFound)
	return newGate(s.token, s.opts.PublicHealth, mux)
}

// handleNotFound answers what no route takes: an unknown API path (already
// past the gate) gets FastAPI's 404, any other path the mode's: serve is
// headless, as Hermes says on every non-API path.
func (s *server) handleNotFound(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, hermes.APIPrefix) || s.opts.Verb == VerbDashboard {
		writeJSONStatus(w, http.StatusNotFound, detail("Not Found"))
		return
	}
	writeJSONStatus(w, http.StatusNotFound, detail(headlessDetail))
}

func (s *server) handleHealth(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, map[string]any{"ok": true, "version": s.version, "pid": os.Getpid()})
}

func (s *server) handleStatus(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	children := append([]int{}, s.children...)
	leaked := len(s.leaked)
	s.mu.Unlock()
	writeJSON(w, map[string]any{
		"ok":         true,
		"version":    s.version,
		"mode":       s.opts.Verb.String(),
		"pid":        os.Getpid(),
		"uptime_s":   time.Since(s.started).Seconds(),
		"children":   children,
		"leaked_fds": leaked,
	})
}

// routeStubs answers the rest of Hermes' public paths with the smallest
// honest body: the built-in backend has no configuration, model, themes or
// cron jobs of its own.
func (s *server) routeStubs(mux *http.ServeMux) {
	static := func(v any) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) { writeJSON(w, v) }
	}
	mux.HandleFunc("GET "+hermes.ConfigDefaultsPath, static(map[string]any{}))
	mux.HandleFunc("GET "+hermes.ConfigSchemaPath, static(map[string]any{"fields": map[string]any{}, "category_order": []string{}}))
	mux.HandleFunc("GET "+hermes.ModelInfoPath, static(map[string]any{"model": "", "provider": "hermes-desktop built-in backend"}))
	mux.HandleFunc("GET "+hermes.DashboardThemesPath, static(map[string]any{"themes": []map[string]string{{"name": "default"}}, "active": "default"}))
	mux.HandleFunc("POST "+hermes.CronFirePath, static(map[string]any{"ok": true, "fired": []string{}}))
	// Past the gate, the WebSocket answers that it is not there: the
	// built-in backend has no agent to chat with.
	mux.HandleFunc("GET "+hermes.WebSocketPath, func(w http.ResponseWriter, r *http.Request) {
		writeJSONStatus(w, http.StatusNotImplemented, detail("the built-in backend has no chat WebSocket"))
	})
}

func writeJSON(w http.ResponseWriter, v any) { writeJSONStatus(w, http.StatusOK, v) }

func writeJSONStatus(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
