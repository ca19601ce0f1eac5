//go:build unix

package remotewd

import (
	"bufio"
	"crypto/subtle"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The claim socket: where the app's next session (a reconnect, an update's
// successor) takes the lifeline over (see protocol.go, "Claims").

// claimKeys are the secrets a claim may present: the session secret, and
// a handover's one-time secret until it is used.
type claimKeys struct {
	mu      sync.Mutex // guards what follows
	session string     // "" matches nothing
	once    string     // "" matches nothing; cleared when used
}

func (k *claimKeys) setSession(s string) {
	k.mu.Lock()
	k.session = s
	k.mu.Unlock()
}

func (k *claimKeys) sessionSecret() string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.session
}

func (k *claimKeys) setOnce(s string) {
	k.mu.Lock()
	k.once = s
	k.mu.Unlock()
}

// match says whether secret is one of the keys (compared in constant
// time); a one-time secret that matches is used up.
func (k *claimKeys) match(secret string) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	if !ValidSecret(secret) {
		return false
	}
	if k.session != "" && subtle.ConstantTimeCompare([]byte(secret), []byte(k.session)) == 1 {
		return true
	}
	if k.once != "" && subtle.ConstantTimeCompare([]byte(secret), []byte(k.once)) == 1 {
		k.once = ""
		return true
	}
	return false
}

// claimReadTimeout bounds how long a connection to the claim socket may
// take to send its claim line.
const claimReadTimeout = 10 * time.Second

// claimWriteTimeout bounds the answer to a claim.
const claimWriteTimeout = 5 * time.Second

// listenClaim listens on path (mode 0600; its directory is ours and 0700,
// checked by the caller). A file already there is replaced only when it is
// provably a dead socket of ours (nothing answers on it); anything else is
// left alone and the claim socket is not made (fail closed).
func listenClaim(path string) (*net.UnixListener, error) {
	if fi, err := os.Lstat(path); err == nil {
		if err := deadSocketOfOurs(path, fi); err != nil {
			return nil, fmt.Errorf("watchdog-remote: claim socket %s: %w; left alone", path, err)
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("watchdog-remote: remove the dead claim socket: %w", err)
		}
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("watchdog-remote: claim socket: %w", err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("watchdog-remote: claim socket: %w", err)
	}
	return ln, nil
}

// deadSocketOfOurs is nil when path (fi) is a socket of this user on which
// nothing listens: a watchdog of ours that died without removing it.
func deadSocketOfOurs(path string, fi fs.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if fi.Mode().Type() != fs.ModeSocket || !ok || int(st.Uid) != os.Getuid() {
		return errors.New("it exists and is not a socket of this user")
	}
	c, err := net.DialTimeout("unix", path, time.Second)
	if err == nil {
		c.Close()
		return errors.New("a process listens on it")
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		return fmt.Errorf("cannot tell whether a process listens on it (%w)", err)
	}
	return nil
}

// claim is a connection whose claim matched, for the follow loop.
type claim struct {
	conn net.Conn
	in   *bufio.Reader // what follows the claim line
}

// serveClaims accepts connections on ln until it is closed, and hands
// each one whose claim matches a key to claims, unless ended is closed
// first (the tree is going: refused).
func serveClaims(ln *net.UnixListener, keys *claimKeys, claims chan<- claim, ended <-chan struct{}, log *slog.Logger) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return // closed: the tree is gone
		}
		go checkClaim(c, keys, claims, ended, log)
	}
}

// checkClaim reads c's claim line and passes c on, or refuses it.
func checkClaim(c net.Conn, keys *claimKeys, claims chan<- claim, ended <-chan struct{}, log *slog.Logger) {
	_ = c.SetReadDeadline(time.Now().Add(claimReadTimeout))
	in := bufio.NewReaderSize(c, maxLine)
	line, err := in.ReadString('\n')
	_ = c.SetReadDeadline(time.Time{})
	tag, secret, _ := strings.Cut(strings.TrimRight(line, "\r\n"), " ")
	why := ""
	switch {
	case err != nil:
		why = "no claim line: " + err.Error()
	case tag != TagClaim:
		why = fmt.Sprintf("%q is not a claim", tag)
	case !keys.match(secret):
		why = "wrong secret"
	}
	if why == "" {
		select {
		case claims <- claim{conn: c, in: in}:
			return
		case <-ended:
			why = "the backend is ending"
		}
	}
	log.Warn("claim refused", "why", why)
	_ = c.SetWriteDeadline(time.Now().Add(claimWriteTimeout))
	_, _ = fmt.Fprintf(c, "%s %s\n", TagRefused, why)
	c.Close()
}
