package backend

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"time"

	"hermes-desktop/backend/reap"
)

// A Hermes asked for a dashboard while a host backend already runs starts
// no second server: it prints that the backend is already running, with
// its http://127.0.0.1:PORT/... URL, and exits 0 (78 when it refuses). The
// launcher treats that as a backend found, never as a crash: it shows the
// URL, checks its health, opens it, never signals it, and starts its own
// when it goes away.

// loopbackURL finds a URL on a loopback host in a line of output.
var loopbackURL = regexp.MustCompile(`https?://(?:127\.0\.0\.1|localhost|\[::1\]):[0-9]{1,5}(?:/[^\s"'<>]*)?`)

// externalCheckEvery paces the health checks of an attached backend; two
// failures in a row mean it went away.
const (
	externalCheckEvery = 2 * time.Second
	externalFailures   = 2
)

// attachURL is where the exited instance said a running backend is: only an
// instance that exited 0 before it was ready, having printed a loopback URL,
// found one.
func (i *instance) attachURL() (string, bool) {
	u := i.seenURL.Load()
	if u == nil || i.status.Code != 0 || i.status.Unknown {
		return "", false
	}
	return *u, true
}

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
	status, _, err := get(ctx, http.DefaultClient, e.health, "")
	return err == nil && status >= 200 && status <= 299
}

func (e *external) stop() { e.ticker.Stop() }

// exeStamp identifies an executable file's content on disk cheaply: a
// changed size, modification time or inode means it was replaced (as
// `hermes update` does, killing the backends it replaced).
type exeStamp struct {
	path    string
	size    int64
	modTime time.Time
	ino     uint64
}

// stampExecutable stamps argv0 as the OS would find it; zero if it cannot.
func stampExecutable(argv0 string) exeStamp {
	path, err := exec.LookPath(argv0)
	if err != nil {
		return exeStamp{}
	}
	fi, err := os.Stat(path)
	if err != nil {
		return exeStamp{}
	}
	return exeStamp{path: path, size: fi.Size(), modTime: fi.ModTime(), ino: fileInode(fi)}
}

// changed reports whether the executable was replaced since the stamp.
func (e exeStamp) changed() bool {
	if e.path == "" {
		return false
	}
	now := stampExecutable(e.path)
	return now.path != "" && now != e
}
