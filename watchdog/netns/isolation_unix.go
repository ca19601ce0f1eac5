//go:build unix

package netns

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"hermes-desktop/platform/proc"
)

// Isolation is one run's network namespace as the remote watchdog holds
// it: the run's 0700 directory with the backend's socket (handed to the
// relay inside) and the egress proxy's socket (served here), and the
// control connection to the relay. Why says, when the backend is not
// isolated, why not; then nothing else is set (Off).
//
// Owner: the remote watchdog's run; Close ends the proxy and the control
// connection (the relay ends at its EOF, if the teardown has not ended it
// first) and removes the directory. A nil *Isolation is not active.
type Isolation struct {
	Why    string
	dir    string // <root>/<ownership id>, ours to remove
	socket string // dir/BackendSocket

	proxy   *egressProxy
	ctl     net.Conn // the watchdog's end of the control pair
	nsCtl   *os.File // the namespace's end, for the held start
	backend *os.File // the backend socket's listener, for the held start
	relay   proc.Identity
	lines   *bufio.Scanner // the control's lines from the namespace
}

// probeTimeout bounds the probe; relayTimeout the held start's
// preparation of the namespace.
const (
	probeTimeout = 5 * time.Second
	relayTimeout = 10 * time.Second
)

// Probe is the real trial of whether this user may make the namespaces:
// the core started in a new user and network namespace brings its
// loopback up, listens and connects there; the error says why not.
func Probe() error {
	sys, err := Attr()
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("probe: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("probe: %w", err)
	}
	defer errR.Close()
	p, err := os.StartProcess(self, []string{self, Subcommand, "--probe"},
		&os.ProcAttr{Files: []*os.File{nil, nil, errW}, Sys: sys})
	errW.Close()
	if err != nil {
		return fmt.Errorf("start a process in new namespaces: %w", err)
	}
	timer := time.AfterFunc(probeTimeout, func() { _ = p.Kill() })
	said, _ := io.ReadAll(io.LimitReader(errR, 1024))
	st, err := p.Wait()
	timer.Stop()
	switch {
	case err != nil:
		return fmt.Errorf("probe: %w", err)
	case !st.Success():
		return fmt.Errorf("%s (%s)", strings.TrimSpace(string(said)), st)
	}
	return nil
}

// Off is a backend that is not isolated, and why.
func Off(why string) *Isolation { return &Isolation{Why: why} }

// Prepare makes the run's directory id under root (0700, new: root is
// the caller's, checked as this user's and closed to others), listens on
// the backend's socket and serves the egress proxy there (both 0600), and
// makes the control pair. On error what was made is in the result, for
// Close.
func Prepare(root, id string, log *slog.Logger) (*Isolation, error) {
	iso := &Isolation{}
	dir := filepath.Join(root, id)
	if err := os.Mkdir(dir, 0o700); err != nil {
		return iso, fmt.Errorf("the namespace's directory: %w", err) // a leftover is the reap's, never reused
	}
	iso.dir = dir
	if err := os.Chmod(dir, 0o700); err != nil { // past the umask
		return iso, fmt.Errorf("the namespace's directory: %w", err)
	}
	iso.socket = filepath.Join(dir, BackendSocket)
	var err error
	if iso.backend, err = listenPrivate(iso.socket); err != nil {
		return iso, err
	}
	proxyLn, err := net.Listen("unix", filepath.Join(dir, ProxySocket))
	if err != nil {
		return iso, fmt.Errorf("the egress proxy's socket: %w", err)
	}
	if err := os.Chmod(filepath.Join(dir, ProxySocket), 0o600); err != nil {
		proxyLn.Close()
		return iso, fmt.Errorf("the egress proxy's socket: %w", err)
	}
	iso.proxy = serveEgress(proxyLn, log)
	pair, err := controlPair()
	if err != nil {
		return iso, fmt.Errorf("the namespace's control: %w", err)
	}
	iso.nsCtl = os.NewFile(uintptr(pair[1]), "namespace control")
	ours := os.NewFile(uintptr(pair[0]), "control")
	iso.ctl, err = net.FileConn(ours)
	ours.Close()
	if err != nil {
		return iso, fmt.Errorf("the namespace's control: %w", err)
	}
	iso.lines = bufio.NewScanner(iso.ctl)
	return iso, nil
}

// controlPair is a connected pair of unix stream sockets, both close-on-
// exec (under ForkLock, as package net makes its sockets where
// SOCK_CLOEXEC is missing: no child started meanwhile inherits them).
func controlPair() ([2]int, error) {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		return fds, err
	}
	syscall.CloseOnExec(fds[0])
	syscall.CloseOnExec(fds[1])
	return fds, nil
}

// listenPrivate listens on a unix socket at path, mode 0600 (its directory
// is 0700: no one else reaches it between the bind and the chmod), and
// returns the listener as a file for the relay; the socket stays until
// its directory is removed.
func listenPrivate(path string) (*os.File, error) {
	if len(path) >= len(syscall.RawSockaddrUnix{}.Path) {
		return nil, fmt.Errorf("the backend's socket %s is longer than a unix socket's path may be", path)
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("the backend's socket: %w", err)
	}
	ln.SetUnlinkOnClose(false)
	defer ln.Close()
	if err := os.Chmod(path, 0o600); err != nil {
		return nil, fmt.Errorf("the backend's socket: %w", err)
	}
	f, err := ln.File()
	if err != nil {
		return nil, fmt.Errorf("the backend's socket: %w", err)
	}
	return f, nil
}

// Active reports whether the backend is to be isolated.
func (iso *Isolation) Active() bool { return iso != nil && iso.Why == "" }

// Socket is the backend's socket ("" when not isolated).
func (iso *Isolation) Socket() string {
	if !iso.Active() {
		return ""
	}
	return iso.socket
}

// Relay is the relay's identity once Started (zero before, or when not
// isolated).
func (iso *Isolation) Relay() proc.Identity {
	if !iso.Active() {
		return proc.Identity{}
	}
	return iso.relay
}

// HoldArgs are the held start's flag and files for the namespace: fd 4
// the control, fd 5 the backend's socket (see relay_unix.go); the flag
// goes before the held start's "--".
func (iso *Isolation) HoldArgs() (string, []*os.File) {
	return HoldFlag + filepath.Join(iso.dir, ProxySocket), []*os.File{iso.nsCtl, iso.backend}
}

// Started closes our copies of what the held start took, then waits for
// the relay's "ready <pid>" (or the held start's "error <why>", or EOF:
// both gone); the relay must be our child, and the backend must be in a
// network namespace other than ours.
func (iso *Isolation) Started(backend int) error {
	if !iso.Active() {
		return nil
	}
	iso.nsCtl.Close()
	iso.backend.Close()
	_ = iso.ctl.SetReadDeadline(time.Now().Add(relayTimeout))
	defer func() { _ = iso.ctl.SetReadDeadline(time.Time{}) }()
	if !iso.lines.Scan() {
		return fmt.Errorf("the namespace's relay did not start: %w", errors.Join(iso.lines.Err(), io.ErrUnexpectedEOF))
	}
	tag, arg, _ := strings.Cut(iso.lines.Text(), " ")
	if tag != nsReady {
		return fmt.Errorf("the namespace could not be prepared: %s", arg)
	}
	pid, err := strconv.Atoi(arg)
	if err != nil {
		return fmt.Errorf("the namespace's relay: %q is not a PID", arg)
	}
	p, err := proc.Stat(pid)
	if err != nil || p.PPID != os.Getpid() {
		return fmt.Errorf("the namespace's relay %d is not the watchdog's child", pid)
	}
	iso.relay = p.Identity()
	return ownNetns(backend)
}

// Watch calls gone when the relay's end of the control closes without
// its saying it was asked to stop (the relay crashed or was killed: the
// backend can no longer be reached). It returns at once; its goroutine
// ends at that EOF, which Close brings at the latest.
func (iso *Isolation) Watch(gone func()) {
	if !iso.Active() {
		return
	}
	go func() {
		for iso.lines.Scan() {
			if iso.lines.Text() == nsStopping {
				return // the teardown's: its reason stands
			}
		}
		gone()
	}()
}

// SetPort tells the relay the backend's port.
func (iso *Isolation) SetPort(port int, log *slog.Logger) {
	if !iso.Active() || iso.ctl == nil {
		return
	}
	_ = iso.ctl.SetWriteDeadline(time.Now().Add(time.Second))
	if _, err := io.WriteString(iso.ctl, nsPort+" "+strconv.Itoa(port)+"\n"); err != nil {
		log.Warn("tell the namespace's relay the backend's port", "err", err)
	}
}

// Close ends the proxy and the control, and removes the directory.
func (iso *Isolation) Close(log *slog.Logger) {
	if iso == nil {
		return
	}
	for _, f := range []*os.File{iso.nsCtl, iso.backend} {
		if f != nil {
			f.Close()
		}
	}
	if iso.ctl != nil {
		iso.ctl.Close()
	}
	iso.proxy.close()
	if iso.dir != "" {
		if err := os.RemoveAll(iso.dir); err != nil {
			log.Warn("remove the namespace's directory", "err", err)
		}
	}
}

// The held start's fds in a namespace: 3 is its go-ahead, as always.
const (
	holdFdControl = 4
	holdFdBackend = 5
)

// HoldFlag is the held start's flag that it runs in a new namespace,
// with the egress proxy's socket outside: `watchdog-hold --netns=PROXY --
// CMD...` (without it: `watchdog-hold CMD...`).
const HoldFlag = "--netns="

// HoldPrepare is the held start's part in a new namespace, before it
// waits for the go-ahead (the caller has locked its thread): loopback up, a listener there for the proxy's
// relay, the relay started (fds as nsrelay_unix.go says), and the
// environment that points the backend at it. Its own copies of the fds
// are closed: the backend holds none of them. On error it tells the
// watchdog on the control.
func HoldPrepare(proxy string) (env []string, err error) {
	ctl := os.NewFile(holdFdControl, "control")
	backend := os.NewFile(holdFdBackend, "backend")
	defer backend.Close()
	defer ctl.Close()
	defer func() {
		if err != nil {
			_, _ = io.WriteString(ctl, nsError+" "+strings.NewReplacer("\n", " ", "\r", " ").Replace(err.Error())+"\n")
		}
	}()
	if err := bringLoopbackUp(); err != nil {
		return nil, err
	}
	ln, err := net.ListenTCP("tcp", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		return nil, fmt.Errorf("listen for the proxy's relay: %w", err)
	}
	defer ln.Close()
	lnf, err := ln.File()
	if err != nil {
		return nil, fmt.Errorf("listen for the proxy's relay: %w", err)
	}
	defer lnf.Close()
	if err := dropCapabilities(); err != nil { // the relay and the backend get none
		return nil, err
	}
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("start the namespace's relay: %w", err)
	}
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		return nil, fmt.Errorf("start the namespace's relay: %w", err)
	}
	defer devnull.Close()
	// Its stderr is the backend's: what it says goes to the backend's log.
	p, err := os.StartProcess(self, []string{self, Subcommand, "--proxy=" + proxy},
		&os.ProcAttr{Files: []*os.File{devnull, devnull, os.Stderr, ctl, backend, lnf}, Sys: relayAttr()})
	if err != nil {
		return nil, fmt.Errorf("start the namespace's relay: %w", err)
	}
	_ = p.Release() // the watchdog's child (CLONE_PARENT): it collects it
	return proxyEnv(ln.Addr().(*net.TCPAddr).Port), nil
}

// proxyEnv points every common spelling of the proxy variables at the
// relay on port; the namespace's own loopback goes direct.
func proxyEnv(port int) []string {
	url := "http://127.0.0.1:" + strconv.Itoa(port)
	var env []string
	for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"} {
		env = append(env, k+"="+url, strings.ToLower(k)+"="+url)
	}
	return append(env, "NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost")
}

// WithEnv is env with each of set's keys replaced (or added).
func WithEnv(env, set []string) []string {
	keys := map[string]bool{}
	for _, kv := range set {
		k, _, _ := strings.Cut(kv, "=")
		keys[k] = true
	}
	var out []string
	for _, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); !keys[k] {
			out = append(out, kv)
		}
	}
	return append(out, set...)
}
