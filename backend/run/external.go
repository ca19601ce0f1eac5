package run

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"hermes-desktop/contract/hermes"
)

// A Hermes asked for a dashboard while a host backend already runs starts
// no second server: it prints that the backend is already running, with
// its http://127.0.0.1:PORT/... URL, and exits 0 (78 when it refuses). The
// launcher treats that as a backend found, never as a crash: it shows the
// URL, checks its health, opens it, never signals it, and starts its own
// when it goes away.

// ExternalCheckEvery paces the health checks of an attached backend;
// ExternalFailures in a row mean it went away.
const (
	ExternalCheckEvery = 2 * time.Second
	ExternalFailures   = 2
)

// External is the backend someone else runs that a command attached to.
// Owned by one goroutine (its supervisor's).
type External struct {
	Page     string // the URL it printed, opened by Open Hermes
	Port     int
	Failures int          // health checks failed in a row
	Ticker   *time.Ticker // paces the health checks
	health   string       // its public status endpoint
}

// NewExternal reads the URL a Hermes printed; false unless it is loopback.
func NewExternal(page string) (*External, bool) {
	u, err := url.Parse(page)
	if err != nil || !hermes.IsLoopbackHost(u.Hostname()) {
		return nil, false
	}
	port, err := strconv.Atoi(u.Port())
	if err != nil || port <= 0 || port > 65535 {
		return nil, false
	}
	base := u.Scheme + "://" + net.JoinHostPort(u.Hostname(), u.Port())
	return &External{Page: page, health: base + hermes.StatusPath, Port: port, Ticker: time.NewTicker(ExternalCheckEvery)}, true
}

// Alive asks the attached backend's public status once.
func (e *External) Alive(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	status, _, err := Get(ctx, http.DefaultClient, e.health, "")
	return err == nil && status >= 200 && status <= 299
}

// Stop ends the health checks' ticker.
func (e *External) Stop() { e.Ticker.Stop() }
