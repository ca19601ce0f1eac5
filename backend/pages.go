package backend

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"sync/atomic"

	"hermes-desktop/backend/supervisor"
	"hermes-desktop/contract/errkind"
	"hermes-desktop/contract/hermes"
)

// Pages opens what a person asks to see: a backend's page in the browser,
// its connection details, a folder or a link with the desktop's handler
// (opener.go), and the window itself when a second launch asks for it.
// The window, the tray and the control socket share it (Launcher.Pages).
type Pages struct {
	sups  *supervisor.List // the launcher's backends
	nonce string           // marks an opener as our helper (reclaim.HelperEnv)
	focus atomic.Pointer[func()]
}

// Pages is what the launcher opens for a person.
func (l *Launcher) Pages() *Pages { return l.pages }

// SetFocus registers what a second launch should do (bring the window up).
func (p *Pages) SetFocus(fn func()) { p.focus.Store(&fn) }

// focusWindow runs what SetFocus registered, reporting whether there was
// anything.
func (p *Pages) focusWindow() bool {
	fn := p.focus.Load()
	if fn != nil {
		(*fn)()
	}
	return fn != nil
}

// ErrNoPage means no backend has a page to open yet.
var ErrNoPage = fmt.Errorf("%w: no backend with a page is ready", errkind.ErrNotReady)

// URL is the page Open Hermes opens: the named backend's, or the first
// page-serving backend's that is ready (or attached) when name is "".
func (p *Pages) URL(name string) (string, error) {
	if name != "" {
		s, err := p.sups.Find(name)
		if err != nil {
			return "", err
		}
		if st := s.Status(); st.PageURL != "" {
			return st.PageURL, nil
		}
		if spec := s.Spec(); spec.ServesPage() {
			return "", fmt.Errorf("%w: backend %s is %s", errkind.ErrNotReady, name, s.Status().State)
		}
		return "", fmt.Errorf("%w: backend %s is API only (a serve backend); use its connection details", errkind.ErrRefused, name)
	}
	for _, s := range p.sups.All() {
		if st := s.Status(); st.PageURL != "" {
			return st.PageURL, nil
		}
	}
	return "", ErrNoPage
}

// Open opens the page in the default browser and returns its URL.
func (p *Pages) Open(name string) (string, error) {
	u, err := p.URL(name)
	if err != nil {
		return "", err
	}
	return u, p.OpenExternal(u)
}

// ConnectionDetails is what a Hermes client needs to reach a backend: its
// URL and, for a desktop-owned backend, the session token and how to send
// it. It is the one place the token is shown, on the user's request.
func (p *Pages) ConnectionDetails(name string) (string, error) {
	s, err := p.sups.Find(name)
	if err != nil {
		return "", err
	}
	st := s.Status()
	if st.URL == "" {
		return "", fmt.Errorf("%w: backend %s is %s", errkind.ErrNotReady, st.Name, st.State)
	}
	token, err := s.Token(context.Background())
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "URL: %s\n", st.URL)
	if token == "" {
		b.WriteString("Token: none of ours (a dashboard makes its own and puts it in its page)\n")
		return b.String(), nil
	}
	ws, _ := url.Parse(st.URL)
	ws.Scheme, ws.Path, ws.RawQuery = "ws", hermes.WebSocketPath, url.Values{hermes.QueryToken: {token}}.Encode()
	fmt.Fprintf(&b, "Token: %s\nREST header: %s: %s\nWebSocket: %s\n", token, hermes.SessionTokenHeader, token, ws)
	return b.String(), nil
}
