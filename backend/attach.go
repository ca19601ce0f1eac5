package backend

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"hermes-desktop/backend/instance"
	"hermes-desktop/backend/reap"
)

// A Hermes asked for a dashboard while a host backend already runs starts
// no second server: it prints that the backend is already running, with
// its http://127.0.0.1:PORT/... URL, and exits 0 (78 when it refuses). The
// launcher treats that as a backend found, never as a crash: it shows the
// URL, checks its health, opens it, never signals it, and starts its own
// when it goes away.

// externalCheckEvery paces the health checks of an attached backend; two
// failures in a row mean it went away.
const (
	externalCheckEvery = 2 * time.Second
	externalFailures   = 2
)

// external is the backend someone else runs that we attached to. Owned by
// the supervisor's goroutine.
type external struct {
	page     string // the URL it printed, opened by Open Hermes
	health   string // its public status endpoint
	port     int
	failures int
	ticker   *time.Ticker
}

func newExternal(page string) (*external, bool) {
	u, err := url.Parse(page)
	if err != nil || !reap.IsLoopbackHost(u.Hostname()) {
		return nil, false
	}
	port, err := strconv.Atoi(u.Port())
	if err != nil || port <= 0 || port > 65535 {
		return nil, false
	}
	base := u.Scheme + "://" + net.JoinHostPort(u.Hostname(), u.Port())
	return &external{page: page, health: base + fallbackHealthPath, port: port, ticker: time.NewTicker(externalCheckEvery)}, true
}

// alive asks the attached backend's public status once.
func (e *external) alive(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	status, _, err := instance.Get(ctx, http.DefaultClient, e.health, "")
	return err == nil && status >= 200 && status <= 299
}

func (e *external) stop() { e.ticker.Stop() }
