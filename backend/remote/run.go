package remote

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"hermes-desktop/backend/hermes"
	"hermes-desktop/backend/logs"
	"hermes-desktop/backend/remotecore"
	"hermes-desktop/backend/run"
	"hermes-desktop/backend/runspec"
	"hermes-desktop/backend/settings"
	"hermes-desktop/backend/ssh"
	"hermes-desktop/lockfile"
	"hermes-desktop/watchdog/remotewd"
)

// Runner starts backends on one host.
type Runner struct {
	// Host is the host's connection, asked at each start: one given up on
	// is made anew when the ssh config file changed since (Hosts.Get).
	Host func() (*Host, error)
	// Log receives the backend's output lines.
	Log *logs.Log
	// DisconnectGrace is how long the remote tree outlives a silent
	// channel; zero means settings.DefaultDisconnectGrace.
	DisconnectGrace time.Duration
}

// Start starts a run of spec on the host. It returns at once: connecting,
// installing the core and starting the remote watchdog go on in the run's
// own goroutine, and AwaitReady reports how they went.
func (r Runner) Start(spec *runspec.Spec) (run.Process, error) {
	h, err := r.Host()
	if err != nil {
		return nil, fmt.Errorf("%w (%w)", err, fs.ErrPermission) // the app is closing, or the host cannot be: not retried
	}
	x, err := newRun(spec, h, r)
	if err != nil {
		return nil, err
	}
	go x.main()
	return x, nil
}

// Run is one run of a backend on another host (a run.Process).
//
// Goroutines, all owned by the run: main (connect, start the channel,
// then the heartbeat until the channel ends; it closes exited), and the
// channel reader it starts (ends at the channel's EOF).
type Run struct {
	spec  *runspec.Spec
	host  *Host
	log   *logs.Log
	grace time.Duration // the disconnect grace
	beat  time.Duration // the heartbeat's period

	nonce       string // local: the status' nonce
	ownershipID string
	spawnNonce  string
	token       string // sent to the remote; "" for a dashboard's health checks
	sendToken   string

	released     chan struct{}
	releaseOnce  sync.Once
	stopping     chan struct{}
	stopOnce     sync.Once
	backendKnown chan struct{}
	ready        *run.PortMatcher // the port the output announces
	exited       chan struct{}
	changed      chan struct{} // buffered(1): the connection's state changed

	writeMu sync.Mutex // one writer on the channel's stdin at a time
	in      io.WriteCloser

	mu         sync.Mutex // guards what follows
	ch         *ssh.Channel
	hello      remotewd.RemoteHello
	backend    remotewd.RemoteBackend
	exit       *remotewd.RemoteExit
	failure    string // why the run could not start (connect, install, the watchdog's error line)
	permanent  bool   // and retrying cannot help
	remotePort int
	localPort  int
	sentAt     map[uint64]time.Time
	lastPong   time.Time
	latency    time.Duration
	answered   bool // a pong has come: the remote watchdog answers at once now
	pingSeq    uint64
}

func newRun(spec *runspec.Spec, host *Host, r Runner) (*Run, error) {
	nonce, err := lockfile.NewNonce()
	if err != nil {
		return nil, err
	}
	x := &Run{
		spec: spec, host: host, log: r.Log, grace: r.DisconnectGrace, nonce: nonce,
		released: make(chan struct{}), stopping: make(chan struct{}), backendKnown: make(chan struct{}),
		ready: run.NewPortMatcher(spec.ReadyRegex), exited: make(chan struct{}), changed: make(chan struct{}, 1), sentAt: map[uint64]time.Time{},
	}
	if x.grace <= 0 {
		x.grace = settings.DefaultDisconnectGrace
	}
	// A few beats per grace, so one lost beat is never a teardown.
	x.beat = min(max(x.grace/6, 500*time.Millisecond), 5*time.Second)
	if x.ownershipID, err = hermes.NewOwnershipID(); err != nil {
		return nil, err
	}
	if x.spawnNonce, err = hermes.NewSpawnNonce(); err != nil {
		return nil, err
	}
	if x.sendToken, err = hermes.NewSSHToken(); err != nil {
		return nil, err
	}
	if spec.DesktopOwned() {
		x.token = x.sendToken
	}
	return x, nil
}

// options is the remote watchdog's command line for this run.
func (r *Run) options() remotewd.RemoteOptions {
	tok := remotewd.TokenNone
	switch {
	case r.spec.Kind == settings.KindServe:
		tok = remotewd.TokenFile // Hermes' SSH contract
	case r.spec.DesktopOwned():
		tok = remotewd.TokenEnv
	}
	var env []string
	if r.spec.Kind == settings.KindCustom {
		// Python block-buffers stdout into a pipe: its ready line would
		// come only at exit (the same as a local custom backend gets).
		env = append(env, "PYTHONUNBUFFERED=1")
	}
	return remotewd.RemoteOptions{
		OwnershipID: r.ownershipID, SpawnNonce: r.spawnNonce, Token: tok, Env: env,
		HeartbeatGrace: r.grace, Grace: r.spec.Grace, Cgroup: lockfile.CgroupName(r.nonce),
		Profile: r.spec.Profile, Argv: r.spec.Command,
	}
}

// main is the run's life: connect, install, start the remote watchdog,
// hand it the token, wait for Release, then beat until the channel ends.
func (r *Run) main() {
	defer close(r.exited)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-r.stopping:
			cancel()
		case <-r.exited:
		}
	}()
	r.log.Add("launcher", "connecting to "+r.host.Destination)
	in, err := r.host.Install(ctx)
	if err != nil && ctx.Err() != nil { // stopped while connecting: nothing failed
		r.log.Add("launcher", "stopped before it started on "+r.host.Destination)
		return
	}
	if err != nil {
		r.setFailure(err)
		return
	}
	r.reap(ctx, in)
	ch, err := r.host.t.Start(ctx, in.Exec(append([]string{remotewd.RemoteSubcommand}, r.options().Args()...)...)...)
	if err != nil {
		r.setFailure(err)
		return
	}
	r.mu.Lock()
	r.ch = ch
	r.mu.Unlock()
	r.writeMu.Lock()
	r.in = ch.Stdin
	r.writeMu.Unlock()
	readDone := make(chan struct{})
	go func() { defer close(readDone); r.read(ch.Stdout) }()
	r.send(remotewd.TagToken + " " + r.sendToken)
	select {
	case <-r.released:
		r.send(remotewd.TagStart)
		r.heartbeat(readDone)
	case <-r.stopping:
	case <-readDone:
	}
	// Closing stdin is EOF on the lifeline: whatever runs there ends.
	r.closeInput()
	r.finish(ch, readDone)
}

// reap ends, before this run starts, what dead sessions of ours left on
// the host (remotewd.RemoteReapMain), saying in the backend's log what it
// did and why. A reap that fails does not stop the start.
func (r *Run) reap(ctx context.Context, in remotecore.Installed) {
	out, err := r.host.t.Run(ctx, reapTimeout, nil, in.Exec(remotewd.RemoteReapSubcommand)...)
	var rep remotewd.RemoteReapReport
	if err == nil {
		err = json.Unmarshal(out, &rep)
	}
	if err == nil && rep.Error != "" {
		err = errors.New(rep.Error)
	}
	if err != nil {
		r.log.Add("launcher", "remote reap on "+r.host.Destination+" skipped: "+err.Error())
		return
	}
	for _, d := range rep.Decisions {
		line := fmt.Sprintf("remote reap on %s: %s session %s", r.host.Destination, d.Action, d.OwnershipID)
		if d.PID != 0 {
			line += fmt.Sprintf(" (backend PID %d)", d.PID)
		}
		r.log.Add("launcher", line+": "+d.Reason)
	}
}

// reapTimeout bounds the remote reap: a grace of 2 s per leftover.
const reapTimeout = 30 * time.Second

// finish waits for the channel's end (bounded: the remote watchdog tears
// down within its grace once its lifeline is gone), reaps our ssh client
// and drops the forward.
func (r *Run) finish(ch *ssh.Channel, readDone <-chan struct{}) {
	select {
	case <-readDone:
	case <-time.After(r.spec.Grace + run.ShimKillMargin + 5*time.Second):
		_ = ch.Kill()
		<-readDone
	}
	if err := ch.Wait(); err != nil {
		r.mu.Lock()
		if r.exit == nil && r.failure == "" {
			r.failure = err.Error()
		}
		r.mu.Unlock()
	}
	r.mu.Lock()
	local, remote := r.localPort, r.remotePort
	spoke := r.hello.Shim.PID != 0
	r.mu.Unlock()
	if !spoke {
		// The core did not even start there (removed or altered since it
		// was installed, say): the next start checks it again.
		r.host.Forget()
	}
	if local != 0 {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_ = r.host.t.Unforward(ctx, local, remote)
		cancel()
	}
}

// heartbeat writes a ping every beat until the channel ends. A pong
// coming back gives the latency; none for a while is "reconnecting".
func (r *Run) heartbeat(readDone <-chan struct{}) {
	// Looked at four times a beat, so a silence is shown within a quarter
	// beat of passing silenceLimit, not up to a beat later.
	t := time.NewTicker(max(r.beat/4, 100*time.Millisecond))
	defer t.Stop()
	r.mu.Lock()
	r.lastPong = time.Now()
	r.mu.Unlock()
	shown := "connected"
	for tick := 0; ; tick++ {
		if now := r.Connection().State; now != shown {
			shown = now
			select {
			case r.changed <- struct{}{}:
			default:
			}
		}
		if tick%4 != 0 {
			select {
			case <-t.C:
				continue
			case <-readDone:
				return
			case <-r.stopping:
				r.send(remotewd.TagStop)
				return
			}
		}
		r.mu.Lock()
		r.pingSeq++
		n := r.pingSeq
		r.sentAt[n] = time.Now()
		for k := range r.sentAt {
			if k+64 < n {
				delete(r.sentAt, k) // never answered: lost with a blip
			}
		}
		r.mu.Unlock()
		r.send(remotewd.FormatPing(n))
		select {
		case <-t.C:
		case <-readDone:
			return
		case <-r.stopping:
			r.send(remotewd.TagStop)
			return
		}
	}
}

// send writes one line on the lifeline. A failed write is the channel's
// end, which the reader sees.
func (r *Run) send(line string) {
	r.writeMu.Lock()
	defer r.writeMu.Unlock()
	if r.in == nil {
		return
	}
	_, _ = io.WriteString(r.in, line+"\n")
}

func (r *Run) closeInput() {
	r.writeMu.Lock()
	defer r.writeMu.Unlock()
	if r.in != nil {
		r.in.Close()
		r.in = nil
	}
}

func (r *Run) setFailure(err error) {
	r.mu.Lock()
	r.failure = "cannot run on " + r.host.Destination + ": " + err.Error()
	r.permanent = ssh.Permanent(err) || errors.Is(err, remotecore.ErrNoCores) ||
		errors.Is(err, remotecore.ErrUnsupported) || errors.Is(err, remotecore.ErrUnsafeHome)
	r.mu.Unlock()
	r.log.Add("launcher", err.Error())
}

// read handles the remote watchdog's lines until EOF.
func (r *Run) read(out io.Reader) {
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 0, 4096), 512<<10)
	for sc.Scan() {
		tag, payload, _ := strings.Cut(sc.Text(), " ")
		switch tag {
		case remotewd.TagOut, remotewd.TagErr:
			stream := "stdout"
			if tag == remotewd.TagErr {
				stream = "stderr"
			}
			r.log.Add(stream, payload)
			r.ready.Line(payload)
		case remotewd.TagPong:
			r.pong(payload)
		case remotewd.TagHello:
			r.mu.Lock()
			_ = json.Unmarshal([]byte(payload), &r.hello)
			r.mu.Unlock()
		case remotewd.TagBackend:
			r.mu.Lock()
			err := json.Unmarshal([]byte(payload), &r.backend)
			r.mu.Unlock()
			if err == nil && r.backend.Backend.PID > 0 {
				close(r.backendKnown)
			}
		case remotewd.TagError:
			r.mu.Lock()
			r.failure = "on " + r.host.Destination + ": " + payload
			r.permanent = true // the watchdog could not start it: the same again would fail alike
			r.mu.Unlock()
			r.log.Add("launcher", "remote: "+payload)
		case remotewd.TagExit:
			var ex remotewd.RemoteExit
			if json.Unmarshal([]byte(payload), &ex) == nil {
				r.mu.Lock()
				r.exit = &ex
				r.mu.Unlock()
				r.log.Add("launcher", "the remote tree is gone: "+ex.Why)
			}
		}
	}
}

// ConnectionChanged delivers a value when the connection's state changed
// (looked at every beat, and at every pong after a silence).
func (r *Run) ConnectionChanged() <-chan struct{} { return r.changed }

func (r *Run) pong(payload string) {
	n, err := strconv.ParseUint(payload, 10, 64)
	if err != nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if sent, ok := r.sentAt[n]; ok {
		// The first ping goes out with the start and waits until the
		// backend runs there: its round trip is the backend's spawn (100 ms
		// and more), not the link's, and was shown as the latency.
		if r.answered {
			r.latency = time.Since(sent)
		}
		r.answered = true
		delete(r.sentAt, n)
	}
	if time.Since(r.lastPong) > r.silenceLimit() {
		select { // back after a silence: say so now, not a beat later
		case r.changed <- struct{}{}:
		default:
		}
	}
	r.lastPong = time.Now()
}

// silenceLimit is how long without a pong the connection still counts as
// connected: one beat and the round trip, with a margin. Longer, the card
// said Connected for seconds while the page did not answer. Called with mu
// held.
func (r *Run) silenceLimit() time.Duration {
	return min(r.beat+500*time.Millisecond+2*r.latency, 2*r.beat+time.Second)
}

// freePort asks the OS for a free loopback port here. Another program may
// take it before ssh listens: Forward's error then says so, and the next
// port is tried.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// What a remote run is: a Process reached over a connection; no local
// record, no sampled tree, never handed over (an update's successor starts
// it anew over its own connection), so letting go of it is ending it.
var (
	_ run.Process   = (*Run)(nil)
	_ run.Connected = (*Run)(nil)
)
