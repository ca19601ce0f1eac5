package remote

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"strings"
	"sync"
	"time"

	"hermes-desktop/backend/leakguard"
	"hermes-desktop/backend/reapreport"
	"hermes-desktop/backend/remotecore"
	"hermes-desktop/backend/run"
	"hermes-desktop/backend/runspec"
	"hermes-desktop/backend/settings"
	"hermes-desktop/backend/ssh"
	"hermes-desktop/backend/transport"
	"hermes-desktop/contract/hermes"
	"hermes-desktop/contract/logs"
	"hermes-desktop/lockfile"
	"hermes-desktop/watchdog/remotewd"
)

// Runner starts backends on one host.
type Runner struct {
	// Machine is the host's connection, asked at each start: one given up
	// on is made anew when the ssh config file changed since (Hosts.Get).
	Machine func() (*Machine, error)
	// Log receives the backend's output lines.
	Log *logs.Log
	// DisconnectGrace is how long the remote tree outlives a silent
	// channel; zero means settings.DefaultDisconnectGrace.
	DisconnectGrace time.Duration
	// LeakGuard configures the sampling of the remote tree and each run's
	// leak guard (sample.go); Logger gets the guard's log.
	LeakGuard leakguard.Config
	Logger    *slog.Logger
	// Reaped, when set, gets the decisions of the remote reap before each
	// start on the host (for the Boot reap page).
	Reaped func([]reapreport.RemoteDecision)
}

// Start starts a run of spec on the host. It returns at once: connecting,
// installing the core and starting the remote watchdog go on in the run's
// own goroutine, and AwaitReady reports how they went.
func (r Runner) Start(spec *runspec.Spec) (run.Process, error) {
	h, err := r.Machine()
	if err != nil {
		return nil, fmt.Errorf("%w (%w)", err, fs.ErrPermission) // the app is closing, or the host cannot be: not retried
	}
	x, err := newInstance(spec, h, r)
	if err != nil {
		return nil, err
	}
	go x.main()
	return x, nil
}

// Instance is one run of a backend on another host (a run.Process, a peer
// of backend/instance's), its parts each with a job of its own: the
// lifeline it writes and the heartbeat over it (link.go), and what the
// remote watchdog said.
//
// Goroutines, all owned by the instance: main (connect, start the channel,
// then the heartbeat until the channel ends; it closes exited), and the
// channel reader it starts (ends at the channel's EOF).
type Instance struct {
	spec  *runspec.Spec
	host  *Machine
	log   *logs.Log
	grace time.Duration // the disconnect grace
	ids   sessionIDs

	released     gate // Release was called
	stopping     gate // Stop was called
	detached     gate // Detach was called: a successor claims the backend
	backendKnown chan struct{}
	ready        *run.PortMatcher // the port the output announces
	exited       chan struct{}

	line lifeline    // the channel's stdin
	beat heartbeat   // pings and pongs over it
	tree treeSamples // the remote tree's samples and their leak guard (sample.go)

	reaped func([]reapreport.RemoteDecision)

	mu   sync.Mutex // guards what follows
	ch   *transport.Channel
	said said // what the remote watchdog said, or why the run could not start
	// localPort forwards here to remotePort there, once the backend is ready.
	localPort, remotePort int
}

// sessionIDs name one run: nonce locally (the status' nonce); the
// ownership ID, spawn nonce and token for the remote watchdog.
type sessionIDs struct {
	nonce       string
	ownershipID string
	spawnNonce  string
	sendToken   string // sent to the remote
	token       string // the same, for a desktop-owned kind's health checks; "" for a dashboard
	// secret is the session secret a claim presents (remotewd's claim
	// socket): held only here and in the remote's 0600 session file.
	secret string
}

// said is what the remote watchdog said of the run, or why it could not
// start.
type said struct {
	hello     remotewd.RemoteHello
	backend   remotewd.RemoteBackend
	exit      *remotewd.RemoteExit
	failure   string // why the run could not start (connect, install, the watchdog's error line)
	permanent bool   // and retrying cannot help
}

// gate is a signal given once, however often it is opened.
type gate struct {
	ch   chan struct{}
	once sync.Once
}

func newGate() gate { return gate{ch: make(chan struct{})} }

// open gives the signal; idempotent.
func (g *gate) open() { g.once.Do(func() { close(g.ch) }) }

// isOpen says whether the gate is open.
func (g *gate) isOpen() bool {
	select {
	case <-g.ch:
		return true
	default:
		return false
	}
}

// done is closed once the gate is open.
func (g *gate) done() <-chan struct{} { return g.ch }

func newInstance(spec *runspec.Spec, host *Machine, r Runner) (*Instance, error) {
	ids, err := newSessionIDs(spec)
	if err != nil {
		return nil, err
	}
	grace := r.DisconnectGrace
	if grace <= 0 {
		grace = settings.DefaultDisconnectGrace
	}
	x := &Instance{
		spec: spec, host: host, log: r.Log, grace: grace, ids: ids, reaped: r.Reaped,
		released: newGate(), stopping: newGate(), detached: newGate(), backendKnown: make(chan struct{}),
		ready: run.NewPortMatcher(spec.ReadyRegex), exited: make(chan struct{}),
		// Ten beats per grace, so one lost beat is never a teardown, and
		// the remote watchdog tells an EOF right after a beat (the app
		// closed its end) from one after a silence by the same period.
		beat: newHeartbeat(remotewd.BeatEvery(grace)),
	}
	x.newTreeSamples(r.LeakGuard, r.Logger)
	return x, nil
}

func newSessionIDs(spec *runspec.Spec) (sessionIDs, error) {
	var ids sessionIDs
	var err error
	if ids.nonce, err = lockfile.NewNonce(); err != nil {
		return ids, err
	}
	if ids.ownershipID, err = hermes.NewOwnershipID(); err != nil {
		return ids, err
	}
	if ids.spawnNonce, err = hermes.NewSpawnNonce(); err != nil {
		return ids, err
	}
	if ids.sendToken, err = hermes.NewSSHToken(); err != nil {
		return ids, err
	}
	if ids.secret, err = remotewd.NewSecret(); err != nil {
		return ids, err
	}
	if spec.DesktopOwned() {
		ids.token = ids.sendToken
	}
	return ids, nil
}

// options is the remote watchdog's command line for this run.
func (r *Instance) options() remotewd.RemoteOptions {
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
		OwnershipID: r.ids.ownershipID, SpawnNonce: r.ids.spawnNonce, Token: tok, Env: env,
		HeartbeatGrace: r.grace, Grace: r.spec.Grace, SampleEvery: r.tree.period, Cgroup: lockfile.CgroupName(r.ids.nonce),
		Profile: r.spec.Profile, Argv: r.spec.Command, Netns: r.host.isolation(),
	}
}

// untilStopped is a context for a run's life that stopping cancels; the
// goroutine that watches for it ends with the run (exited) at the latest.
func untilStopped(stopping, exited <-chan struct{}) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		select {
		case <-stopping:
			cancel()
		case <-exited:
		}
	}()
	return ctx, cancel
}

// main is the run's life: connect, install, start the remote watchdog,
// hand it the token, wait for Release, then beat until the channel ends.
func (r *Instance) main() {
	defer close(r.exited)
	ctx, cancel := untilStopped(r.stopping.done(), r.exited)
	defer cancel()
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
	r.line.attach(ch.Stdin)
	first := make(chan struct{})
	go func() { defer close(first); r.read(ch.Stdout) }()
	l := link{done: first, kill: func() { _ = ch.Kill() }, wait: ch.Wait}
	r.line.send(remotewd.TagToken + " " + r.ids.sendToken)
	r.line.send(remotewd.TagSecret + " " + r.ids.secret)
	select {
	case <-r.released.done():
		r.line.send(remotewd.TagStart)
		l = r.follow(ctx, l)
	case <-r.stopping.done():
	case <-l.done:
	}
	r.finish(l)
}

// link is the lifeline being read: its end, how to cut it, and how to
// collect what carried it.
type link struct {
	done <-chan struct{}
	kill func()
	wait func() error
}

// follow beats until the lifeline ends; when it ends without the app
// asking (the session died), it reclaims the tree over the host's next
// session and beats on over the claim's connection. It returns the last
// lifeline.
func (r *Instance) follow(ctx context.Context, l link) link {
	for {
		r.heartbeat(l.done)
		select {
		case <-l.done:
		default:
			return l // stopped or detached
		}
		if r.detached.isOpen() || ctx.Err() != nil {
			return l
		}
		next, ok := r.reclaim(ctx, l.wait)
		if !ok {
			return l
		}
		l = next
	}
}

// reap ends, before this run starts, what dead sessions of ours left on
// the host (remotewd.RemoteReapMain), saying in the backend's log what it
// did and why. A reap that fails does not stop the start.
func (r *Instance) reap(ctx context.Context, in remotecore.Installed) {
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
	if r.reaped != nil && len(rep.Decisions) > 0 {
		r.reaped(reapDecisions(r.host.Destination, time.Now(), rep.Decisions))
	}
}

// reapTimeout bounds the remote reap: a grace of 2 s per leftover.
const reapTimeout = 30 * time.Second

// finish closes the lifeline, which is EOF there: whatever runs there
// ends, or, after a handover, waits for the successor's claim. Unless a
// successor has it, it then waits for the channel's end (bounded: the
// remote watchdog tears down within its grace once its lifeline is gone),
// collects our ssh client and drops the forward.
func (r *Instance) finish(l link) {
	r.line.close()
	if r.detached.isOpen() {
		return // the successor's: nothing here to wait for or undo
	}
	select {
	case <-l.done:
	case <-time.After(r.spec.Grace + run.ShimKillMargin + 5*time.Second):
		l.kill()
		<-l.done
	}
	if l.wait == nil {
		l.wait = func() error { return nil }
	}
	if err := l.wait(); err != nil {
		r.mu.Lock()
		if r.said.exit == nil && r.said.failure == "" {
			r.said.failure = err.Error()
		}
		r.mu.Unlock()
	}
	r.mu.Lock()
	local := r.localPort
	spoke := r.said.hello.Shim.PID != 0
	r.mu.Unlock()
	if !spoke {
		// The core did not even start there (removed or altered since it
		// was installed, say): the next start checks it again.
		r.host.Forget()
	}
	if local != 0 {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_ = r.host.t.Unforward(ctx, local)
		cancel()
	}
}

// heartbeat writes a ping every beat until the channel ends. A pong
// coming back gives the latency; none for a while is "reconnecting".
func (r *Instance) heartbeat(readDone <-chan struct{}) {
	// Looked at four times a beat, so a silence is shown within a quarter
	// beat of passing silenceLimit, not up to a beat later.
	t := time.NewTicker(max(r.beat.every/4, 100*time.Millisecond))
	defer t.Stop()
	r.beat.begin()
	shown := "connected"
	for tick := 0; ; tick++ {
		if now := r.Connection().State; now != shown {
			shown = now
			r.beat.notify()
		}
		if tick%4 == 0 {
			r.line.send(r.beat.ping())
		}
		select {
		case <-t.C:
		case <-readDone:
			return
		case <-r.detached.done():
			return
		case <-r.stopping.done():
			r.line.send(remotewd.TagStop)
			return
		}
	}
}

func (r *Instance) setFailure(err error) {
	r.mu.Lock()
	r.said.failure = "cannot run on " + r.host.Destination + ": " + err.Error()
	r.said.permanent = ssh.Permanent(err) || errors.Is(err, remotecore.ErrNoCores) ||
		errors.Is(err, remotecore.ErrUnsupported) || errors.Is(err, remotecore.ErrUnsafeHome)
	r.mu.Unlock()
	r.log.Add("launcher", err.Error())
}

// read handles the remote watchdog's lines until EOF.
func (r *Instance) read(out io.Reader) {
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
			r.beat.pong(payload)
		case remotewd.TagSample:
			r.tree.took(payload)
		case remotewd.TagKilled:
			r.killed(payload)
		case remotewd.TagHello:
			r.mu.Lock()
			_ = json.Unmarshal([]byte(payload), &r.said.hello)
			r.mu.Unlock()
		case remotewd.TagBackend:
			r.mu.Lock()
			err := json.Unmarshal([]byte(payload), &r.said.backend)
			pid := r.said.backend.Backend.PID
			r.mu.Unlock()
			if err == nil && pid > 0 {
				close(r.backendKnown)
			}
		case remotewd.TagError:
			r.mu.Lock()
			r.said.failure = "on " + r.host.Destination + ": " + payload
			r.said.permanent = true // the watchdog could not start it: the same again would fail alike
			r.mu.Unlock()
			r.log.Add("launcher", "remote: "+payload)
		case remotewd.TagExit:
			var ex remotewd.RemoteExit
			if json.Unmarshal([]byte(payload), &ex) == nil {
				r.mu.Lock()
				r.said.exit = &ex
				r.mu.Unlock()
				r.log.Add("launcher", "the remote tree is gone: "+ex.Why)
			}
		}
	}
}

// ConnectionChanged delivers a value when the connection's state changed
// (looked at every beat, and at every pong after a silence).
func (r *Instance) ConnectionChanged() <-chan struct{} { return r.beat.changed }

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

// What a remote run is: a Process reached over a connection, whose tree
// its host's watchdog samples (sample.go); no local record; handed over to
// an update's successor by a claim over the successor's own connection
// (reclaim.go: RemoteTransferable), not by fds.
var (
	_ run.Process   = (*Instance)(nil)
	_ run.Connected = (*Instance)(nil)
	_ run.Sampler   = (*Instance)(nil)
)
