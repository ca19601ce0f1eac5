package sshbridge

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"slices"
	"sync"
	"time"
)

// helloWait bounds how long a connection may take to say hello.
const helloWait = 10 * time.Second

// Options configure a Bridge.
type Options struct {
	// SSH is the client the bridge runs; "" means ssh from PATH.
	SSH string
	// Args go after Forced and before the client's: what this machine's
	// ssh needs that the Windows side cannot name (a test's -F with Linux
	// paths, as a user's ~/.ssh/config). nil means none.
	Args []string
	// Logf, when set, is told about refused connections and failed starts;
	// nil means they are not told.
	Logf func(format string, args ...any)
}

// Bridge is a loopback listener that runs one ssh per connection. Close
// ends it: the listener, every connection, every ssh (killed and
// collected), every goroutine.
type Bridge struct {
	opts   Options
	ln     net.Listener
	secret string
	wg     sync.WaitGroup // the accept loop and one serve per connection

	mu     sync.Mutex // guards conns, closed and runs
	conns  map[net.Conn]bool
	closed bool
	runs   [][]string // the argv of each connection whose hello was accepted
}

// Listen starts a bridge on 127.0.0.1 on a free port.
func Listen(opts Options) (*Bridge, error) {
	if opts.SSH == "" {
		opts.SSH = "ssh"
	}
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	raw := make([]byte, secretLen/2)
	if _, err := rand.Read(raw); err != nil {
		return nil, fmt.Errorf("sshbridge: secret: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("sshbridge: listen: %w", err)
	}
	b := &Bridge{opts: opts, ln: ln, secret: hex.EncodeToString(raw), conns: map[net.Conn]bool{}}
	b.wg.Add(1)
	go b.acceptLoop() // ends when Close closes the listener
	return b, nil
}

// Env is the environment entry (KEY=VALUE) that points fakessh at this
// bridge.
func (b *Bridge) Env() string { return EnvAddr + "=" + b.ln.Addr().String() + " " + b.secret }

// Close stops accepting, drops every connection (each one's ssh is killed)
// and returns once every ssh is collected and every goroutine ended.
func (b *Bridge) Close() error {
	b.mu.Lock()
	b.closed = true
	for c := range b.conns {
		_ = c.Close()
	}
	b.mu.Unlock()
	err := b.ln.Close()
	b.wg.Wait()
	return err
}

func (b *Bridge) acceptLoop() {
	defer b.wg.Done()
	for {
		c, err := b.ln.Accept()
		if err != nil {
			return // closed
		}
		b.mu.Lock()
		if b.closed {
			b.mu.Unlock()
			_ = c.Close()
			return
		}
		b.conns[c] = true
		b.wg.Add(1)
		b.mu.Unlock()
		go b.serve(c) // ends once its ssh is collected
	}
}

// serve runs one connection: the hello, then its ssh until collected.
func (b *Bridge) serve(c net.Conn) {
	defer b.wg.Done()
	defer func() {
		b.mu.Lock()
		delete(b.conns, c)
		b.mu.Unlock()
		_ = c.Close()
	}()
	_ = c.SetReadDeadline(time.Now().Add(helloWait))
	h, err := readHello(c, b.secret)
	if err != nil {
		b.opts.Logf("sshbridge: %s: %v", c.RemoteAddr(), err)
		return // nothing ran: closed without a word
	}
	_ = c.SetReadDeadline(time.Time{})
	b.mu.Lock()
	b.runs = append(b.runs, h.Argv)
	b.mu.Unlock()
	runSession(c, b.opts, h.Argv)
}

// Runs are the arguments of every ssh run so far (without Forced and
// Args), in order: what the Windows side ran its ssh.exe with.
func (b *Bridge) Runs() [][]string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.runs)
}
