package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"hermes-desktop/backend/runspec"
	"hermes-desktop/contract/hermes"
	"hermes-desktop/platform/human"
)

// ReadyPollInterval paces what readiness cannot block on: a ready file
// (written by a process we do not control) and the health endpoint (a
// server that is still starting).
const ReadyPollInterval = 100 * time.Millisecond

// errNoHealthPage means the health path answered 404 (after the fallback,
// for Hermes' default path).
var errNoHealthPage = errors.New("HTTP 404 Not Found")

// ErrExitedEarly means the backend exited before it became ready.
var ErrExitedEarly = errors.New("exited before it was ready")

// TimeoutError says that a start did not do what within spec's start
// timeout, when ctx's deadline is what ended it (else ctx's error).
func TimeoutError(ctx context.Context, spec *runspec.Spec, what string) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("did not %s within %s", what, human.Duration(spec.StartTimeout))
	}
	return ctx.Err()
}

// AwaitHealth asks spec's health path at base until it answers healthy,
// exited closes (ErrExitedEarly) or ctx ends, whose deadline is taken as
// spec's start timeout in the error.
func AwaitHealth(ctx context.Context, base string, spec *runspec.Spec, token string, exited <-chan struct{}) error {
	client := &http.Client{Timeout: 2 * time.Second}
	var last error
	t := time.NewTicker(ReadyPollInterval)
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
