//go:build unix

package netns

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The relay inside an isolated backend's namespace (Subcommand) and what
// it shares with the watchdog and the held start. The watchdog
// makes the sockets and the control pair; the held start (in the new
// namespace) brings its loopback up, listens there for the proxy's relay,
// and starts the relay as the watchdog's own child (CLONE_PARENT), with:
//
//	fd 3  the control connection to the watchdog (a socketpair end):
//	      the relay says "ready" (or the held start "error <why>"), the
//	      watchdog says "port <n>" (the backend's port, from the app);
//	      EOF ends the relay (the watchdog is gone)
//	fd 4  the listener of RemoteBackend.Socket: each connection is carried
//	      to 127.0.0.1:<port> inside the namespace
//	fd 5  the listener on the namespace's 127.0.0.1 that HTTP_PROXY names:
//	      each connection is carried to the watchdog's egress proxy
//	      (--proxy, ProxySocket outside)
//
// Its goroutines end with the process: the teardown's SIGTERM, or EOF on
// fd 3.
const (
	nsFdControl = 3
	nsFdBackend = 4
	nsFdProxy   = 5
)

// Control lines between the watchdog and the namespace.
const (
	nsReady = "ready"
	nsError = "error"
	nsPort  = "port"
	// nsStopping: the relay was asked to stop (the teardown's SIGTERM), so
	// its EOF that follows is not the relay lost.
	nsStopping = "stopping"
)

// portWait bounds how long a connection to the backend's socket waits for
// its port: the app forwards once it read the port from the output, and
// its "port" line may arrive a moment after the first connection.
const portWait = 10 * time.Second

// Main is Subcommand: the probe (--probe: can this process bring a
// namespace's loopback up and use it; exit 0 if so) or the relay.
func Main(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet(Subcommand, flag.ContinueOnError)
	fs.SetOutput(stderr)
	probe := fs.Bool("probe", false, "try the namespace's loopback and exit")
	proxy := fs.String("proxy", "", "the egress proxy's unix socket outside the namespace")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *probe {
		if err := probeInside(); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		return 0
	}
	if *proxy == "" {
		fmt.Fprintln(stderr, Subcommand+": --proxy is required")
		return 2
	}
	if err := runRelay(*proxy); err != nil {
		fmt.Fprintln(stderr, Subcommand+":", err)
		return 1
	}
	return 0
}

// probeInside is the probe's trial, run inside fresh namespaces: loopback
// up, a listener on it, one connection to it.
func probeInside() error {
	if err := bringLoopbackUp(); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("listen on the namespace's loopback: %w", err)
	}
	defer ln.Close()
	c, err := net.DialTimeout("tcp", ln.Addr().String(), 5*time.Second)
	if err != nil {
		return fmt.Errorf("connect on the namespace's loopback: %w", err)
	}
	return c.Close()
}

// runRelay serves fds 4 and 5 until fd 3 closes.
func runRelay(proxy string) error {
	ctl, err := net.FileConn(os.NewFile(nsFdControl, "control"))
	if err != nil {
		return fmt.Errorf("control: %w", err)
	}
	backend, err := net.FileListener(os.NewFile(nsFdBackend, "backend"))
	if err != nil {
		return fmt.Errorf("the backend's socket: %w", err)
	}
	egress, err := net.FileListener(os.NewFile(nsFdProxy, "proxy"))
	if err != nil {
		return fmt.Errorf("the proxy's listener: %w", err)
	}
	sayStopping(ctl)
	port := newPortBox()
	go acceptEach(backend, func(c net.Conn) { carryToPort(c, port) })
	go acceptEach(egress, func(c net.Conn) { carryTo(c, "unix", proxy) })
	if _, err := io.WriteString(ctl, nsReady+" "+strconv.Itoa(os.Getpid())+"\n"); err != nil {
		return fmt.Errorf("control: %w", err)
	}
	sc := bufio.NewScanner(ctl)
	for sc.Scan() {
		if tag, arg, _ := strings.Cut(sc.Text(), " "); tag == nsPort {
			if n, err := strconv.Atoi(arg); err == nil && n > 0 && n <= 65535 {
				port.set(n)
			}
		}
	}
	return nil // the watchdog closed the control: nothing is left to relay for
}

// sayStopping makes the teardown's SIGTERM (or an interrupt) end the
// relay after it said so on the control: the watchdog then knows its EOF
// is the teardown's, not the relay lost. The goroutine ends with the
// process.
func sayStopping(ctl net.Conn) {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-sig
		_ = ctl.SetWriteDeadline(time.Now().Add(time.Second))
		_, _ = io.WriteString(ctl, nsStopping+"\n")
		os.Exit(0)
	}()
}

// acceptEach serves every connection of ln until ln is closed. A failed
// accept (out of descriptors) is tried again after a pause that doubles
// to a second, as net/http's server does: the relay must not stop serving
// for a passing shortage, nor spin on it.
func acceptEach(ln net.Listener, serve func(net.Conn)) {
	var pause time.Duration
	for {
		c, err := ln.Accept()
		if errors.Is(err, net.ErrClosed) {
			return
		}
		if err != nil {
			pause = min(max(2*pause, 5*time.Millisecond), time.Second)
			time.Sleep(pause)
			continue
		}
		pause = 0
		go serve(c)
	}
}

// carryToPort carries c to the backend's port on the namespace's loopback.
func carryToPort(c net.Conn, port *portBox) {
	n, ok := port.wait(portWait)
	if !ok {
		c.Close() // no port yet: the app asked too early; it retries
		return
	}
	carryTo(c, "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(n)))
}

// carryTo dials network/addr and splices c with it.
func carryTo(c net.Conn, network, addr string) {
	up, err := net.DialTimeout(network, addr, dialTimeout)
	if err != nil {
		c.Close()
		return
	}
	splice(c, up)
}

// portBox holds the backend's port once the watchdog said it.
type portBox struct {
	mu    sync.Mutex // guards port
	port  int
	known chan struct{} // closed at the first set
}

func newPortBox() *portBox { return &portBox{known: make(chan struct{})} }

func (b *portBox) set(n int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.port == 0 {
		close(b.known)
	}
	b.port = n
}

// wait returns the port, waiting at most d for the first one.
func (b *portBox) wait(d time.Duration) (int, bool) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-b.known:
	case <-t.C:
		return 0, false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.port, true
}
