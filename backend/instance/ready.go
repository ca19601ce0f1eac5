package instance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"

	"hermes-desktop/backend/hermes"
	"hermes-desktop/backend/reap"
	"hermes-desktop/backend/runspec"
	"hermes-desktop/lockfile"
	"hermes-desktop/platform/human"
)

// readyPollInterval paces the two things readiness cannot block on: the
// ready file (written by a process we do not control) and the health
// endpoint (a server that is still starting).
const readyPollInterval = 100 * time.Millisecond

// errNoHealthPage means the health path answered 404 (after the fallback,
// for Hermes' default path).
var errNoHealthPage = errors.New("HTTP 404 Not Found")

// ErrExitedEarly means the backend exited before it became ready.
var ErrExitedEarly = errors.New("exited before it was ready")

// AwaitReady waits until the instance has announced its port (READY line or
// ready file) and its health endpoint answers, within the start timeout.
func (i *Instance) AwaitReady(ctx context.Context) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, i.spec.StartTimeout)
	defer cancel()
	port, err := i.awaitPort(ctx)
	if err != nil {
		return 0, err
	}
	host := reap.ProbeHost(reap.ParseShape(i.spec.Command).Host)
	if err := i.awaitHealth(ctx, host, port); err != nil {
		return 0, err
	}
	return port, nil
}

func (i *Instance) awaitPort(ctx context.Context) (int, error) {
	t := time.NewTicker(readyPollInterval)
	defer t.Stop()
	for {
		select {
		case port := <-i.portFound:
			return port, nil
		case <-i.exited:
			return 0, ErrExitedEarly
		case <-ctx.Done():
			return 0, i.timeoutErr(ctx, "announce a port (no line matched "+strconv.Quote(i.spec.ReadyRegex)+" and no ready file)")
		case <-t.C:
			if port, ok := readReadyFile(i.readyFile); ok {
				return port, nil
			}
		}
	}
}

func (i *Instance) timeoutErr(ctx context.Context, what string) error {
	return TimeoutError(ctx, i.spec, what)
}

// TimeoutError says that a start did not do what within spec's start
// timeout, when ctx's deadline is what ended it (else ctx's error).
func TimeoutError(ctx context.Context, spec *runspec.Spec, what string) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("did not %s within %s", what, human.Duration(spec.StartTimeout))
	}
	return ctx.Err()
}

// readReadyFile reads {"port":N} from the ready file, if it is there yet.
func readReadyFile(path string) (int, bool) {
	data, err := lockfile.ReadLimited(path, 4096)
	if err != nil {
		return 0, false
	}
	var v hermes.ReadyFile
	if json.Unmarshal(data, &v) != nil || v.Port <= 0 || v.Port > 65535 {
		return 0, false
	}
	return v.Port, true
}

func (i *Instance) awaitHealth(ctx context.Context, host string, port int) error {
	base := "http://" + net.JoinHostPort(host, strconv.Itoa(port))
	return AwaitHealth(ctx, base, i.spec, i.token, i.exited)
}

// AwaitHealth asks spec's health path at base until it answers healthy,
// exited closes (ErrExitedEarly) or ctx ends, whose deadline is taken as
// spec's start timeout in the error.
func AwaitHealth(ctx context.Context, base string, spec *runspec.Spec, token string, exited <-chan struct{}) error {
	client := &http.Client{Timeout: 2 * time.Second}
	var last error
	t := time.NewTicker(readyPollInterval)
	defer t.Stop()
	for {
		err := probeHealth(ctx, client, base, spec.HealthPath, token)
		if err == nil {
			return nil
		}
		if last == nil || ctx.Err() == nil {
			last = err // not a probe the deadline cut short: the last answer is what to report
		}
		select {
		case <-exited:
			return ErrExitedEarly
		case <-ctx.Done():
			if errors.Is(last, errNoHealthPage) && errors.Is(ctx.Err(), context.DeadlineExceeded) {
				// Most often a server that is not Hermes, asked Hermes'
				// path: what to change comes first, where a card has room.
				return fmt.Errorf("no page at its health path %s (%w for %v): set a health path the server answers, such as /", spec.HealthPath, errNoHealthPage, spec.StartTimeout)
			}
			return fmt.Errorf("%w (last answer: %v)", TimeoutError(ctx, spec, "pass its health check at "+base+spec.HealthPath), last)
		case <-t.C:
		}
	}
}

// probeHealth asks path once, with the session token when the backend has
// one (Hermes gates every /api/* path but a public few). 2xx is healthy
// unless a JSON body says "ok": false. The Hermes default path falls back
// to the public /api/status when it answers 404 (older Hermes has no
// /api/health) or 401/403 (a gate whose token we do not hold: a
// dashboard's own).
func probeHealth(ctx context.Context, client *http.Client, base, path, token string) error {
	status, body, err := Get(ctx, client, base+path, token)
	if err == nil && path == hermes.HealthPath && fallsBack(status) {
		status, body, err = Get(ctx, client, base+hermes.StatusPath, token)
	}
	if err != nil {
		return err
	}
	if status == http.StatusNotFound {
		return fmt.Errorf("%w: the server has no page at %s", errNoHealthPage, path)
	}
	if status < 200 || status > 299 {
		return fmt.Errorf("HTTP %d", status)
	}
	var v struct {
		OK *bool `json:"ok"`
	}
	if json.Unmarshal(body, &v) == nil && v.OK != nil && !*v.OK {
		return errors.New(`health answered "ok": false`)
	}
	return nil
}

func fallsBack(status int) bool {
	return status == http.StatusNotFound || status == http.StatusUnauthorized || status == http.StatusForbidden
}

// Get asks url once, with the session token when there is one, and returns
// the status and up to 64 KiB of the body.
func Get(ctx context.Context, client *http.Client, url, token string) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, nil, err
	}
	if token != "" {
		req.Header.Set(hermes.SessionTokenHeader, token)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	return resp.StatusCode, body, nil
}
