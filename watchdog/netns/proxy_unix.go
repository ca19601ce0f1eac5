//go:build unix

package netns

import (
	"bufio"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"sync"
	"time"
)

// egressProxy is an isolated backend's way out of its namespace (LLM APIs,
// package indexes): an HTTP proxy the remote watchdog serves outside the
// namespace on a 0600 unix socket, which the relay inside reaches from the
// namespace's loopback (HTTP_PROXY and HTTPS_PROXY point there). CONNECT
// tunnels https; an absolute-URI request is forwarded for plain http. It
// dials directly: a proxy in the watchdog's own environment is not chained.
//
// Goroutines: the server's (ended by close), one per request, and two per
// tunnel (ended when either side closes, or by close).
type egressProxy struct {
	srv     *http.Server
	forward *httputil.ReverseProxy
	dialer  net.Dialer
	log     *slog.Logger
	done    chan struct{} // closed when Serve returned

	mu      sync.Mutex // guards what follows
	tunnels map[net.Conn]struct{}
	closed  bool
}

// dialTimeout bounds the proxy's connection to a destination.
const dialTimeout = 30 * time.Second

// serveEgress serves the proxy on ln until close.
func serveEgress(ln net.Listener, log *slog.Logger) *egressProxy {
	p := &egressProxy{log: log, tunnels: map[net.Conn]struct{}{}, done: make(chan struct{})}
	p.dialer.Timeout = dialTimeout
	p.forward = &httputil.ReverseProxy{
		Rewrite: func(*httputil.ProxyRequest) {}, // the request's absolute URL is its destination; no X-Forwarded-*
		Transport: &http.Transport{
			DialContext: p.dialer.DialContext, Proxy: nil, ForceAttemptHTTP2: false,
			IdleConnTimeout: 90 * time.Second, TLSHandshakeTimeout: 10 * time.Second,
		},
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelInfo),
	}
	p.srv = &http.Server{Handler: p, ReadHeaderTimeout: time.Minute, ErrorLog: p.forward.ErrorLog}
	go func() {
		defer close(p.done)
		if err := p.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Warn("the egress proxy stopped", "err", err)
		}
	}()
	return p
}

// ServeHTTP tunnels a CONNECT and forwards an absolute http:// request;
// anything else is refused.
func (p *egressProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodConnect:
		p.tunnel(w, r)
	case r.URL.IsAbs() && r.URL.Scheme == "http" && r.URL.Host != "":
		p.forward.ServeHTTP(w, r)
	default:
		http.Error(w, "hermes-desktop egress proxy: only CONNECT and absolute http:// requests", http.StatusBadRequest)
	}
}

// tunnel answers a CONNECT: it dials the destination, says 200, and
// carries bytes both ways until either side closes.
func (p *egressProxy) tunnel(w http.ResponseWriter, r *http.Request) {
	up, err := p.dialer.DialContext(r.Context(), "tcp", r.Host)
	if err != nil {
		http.Error(w, "hermes-desktop egress proxy: "+err.Error(), http.StatusBadGateway)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		up.Close()
		http.Error(w, "hermes-desktop egress proxy: cannot tunnel", http.StatusInternalServerError)
		return
	}
	down, brw, err := hj.Hijack()
	if err != nil {
		up.Close()
		return
	}
	if !p.track(down, up) {
		return
	}
	defer p.untrack(down, up)
	if _, err := io.WriteString(down, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		return
	}
	splice(bufferedConn{Conn: down, r: brw.Reader}, up)
}

// track notes a tunnel's two ends, so that close ends it; false (both
// closed) once the proxy is closing.
func (p *egressProxy) track(conns ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		for _, c := range conns {
			c.Close()
		}
		return false
	}
	for _, c := range conns {
		p.tunnels[c] = struct{}{}
	}
	return true
}

func (p *egressProxy) untrack(conns ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range conns {
		delete(p.tunnels, c)
	}
}

// close stops the server and ends every tunnel; it returns once Serve has.
func (p *egressProxy) close() {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.closed = true
	for c := range p.tunnels {
		c.Close()
	}
	p.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := p.srv.Shutdown(ctx); err != nil {
		_ = p.srv.Close()
	}
	<-p.done
}

// bufferedConn is a hijacked connection whose first bytes (a TLS hello
// sent right behind the CONNECT) may already sit in the server's reader.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c bufferedConn) Read(b []byte) (int, error) { return c.r.Read(b) }

// splice carries bytes both ways between a and b until both directions
// end, passing a half-close on where the connection allows it, then
// closes both.
func splice(a, b net.Conn) {
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); pipe(b, a) }()
	go func() { defer wg.Done(); pipe(a, b) }()
	wg.Wait()
	a.Close()
	b.Close()
}

// pipe copies from src to dst, then half-closes dst (or closes both when
// it cannot: the other direction then ends too).
func pipe(dst, src net.Conn) {
	_, err := io.Copy(dst, src)
	if cw, ok := unwrap(dst).(interface{ CloseWrite() error }); ok && err == nil {
		if cw.CloseWrite() == nil {
			return
		}
	}
	dst.Close()
	src.Close()
}

func unwrap(c net.Conn) net.Conn {
	if b, ok := c.(bufferedConn); ok {
		return b.Conn
	}
	return c
}
