//go:build unix

package remotewd

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"hermes-desktop/contract/hermes"
	"hermes-desktop/platform/cgroup"
	"hermes-desktop/platform/proc"
	"hermes-desktop/watchdog"
	"hermes-desktop/watchdog/netns"
)

// RemoteMain runs the remote watchdog (see protocol.go) with stdin and
// stdout as the channel to the app, and returns its exit code.
func RemoteMain(version string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return remoteMain(version, args, stdin, stdout, stderr, netns.Probe)
}

// remoteMain is RemoteMain with the namespace probe given.
func remoteMain(version string, args []string, stdin io.Reader, stdout, stderr io.Writer, probe func() error) int {
	o, err := ParseRemoteFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return watchdog.ExitUsage
	}
	log := slog.New(slog.NewTextHandler(stderr, nil)).With("component", RemoteSubcommand, "pid", os.Getpid())
	out := newChannelWriter(stdout)
	defer out.close(2 * time.Second)
	r := &remoteRun{o: o, log: log, out: out, probe: probe, claims: make(chan claim), ended: make(chan struct{})}
	return r.run(version, stdin)
}

// remoteRun is one run of the remote watchdog.
type remoteRun struct {
	o    RemoteOptions
	log  *slog.Logger
	out  *channelWriter
	why  atomic.Pointer[string] // why the tree was torn down
	lock hermes.SSHLock
	home string
	dir  string           // the lock directory
	smp  *sampler         // samples the tree and carries out kill lines (sample_unix.go)
	iso  *netns.Isolation // the backend's namespace, or why it has none (isolate_unix.go)
	// probe tries whether the host allows the namespace (netns.Probe; a
	// test's seam).
	probe func() error

	self   proc.Identity
	sess   RemoteSession // our session file, as written
	report RemoteBackend // the "backend" line, for a claim's answer
	// Claims (claim_unix.go): the socket (nil when it could not be made:
	// then no EOF holds the tree), the secrets, the claims that matched,
	// and ended, closed once follow returned (claims are refused then).
	ln     *net.UnixListener
	keys   claimKeys
	claims chan claim
	ended  chan struct{}
}

func (r *remoteRun) run(version string, stdin io.Reader) int {
	signals := watchdog.PrepareTree(r.log)
	self, err := proc.Self()
	if err != nil {
		r.out.sendError(fmt.Errorf("identify the watchdog: %w", err))
		return 1
	}
	r.self = self
	r.out.sendJSON(TagHello, RemoteHello{Version: version, Shim: self, Platform: runtime.GOOS + "/" + runtime.GOARCH})
	first := newLifeline(stdin, nil)
	token, ok := r.awaitStart(first.lines)
	if !ok {
		r.log.Info("no start from the app; not starting the backend")
		return watchdog.ExitParentGone
	}
	child, tree, rel, err := r.start(self, token)
	if err != nil {
		r.out.sendError(err)
		r.cleanup()
		return watchdog.ExecExitCode(err)
	}
	// The namespace's relay is ours, not the backend's: never judged or
	// shown as part of its tree.
	r.smp = startSampling(child, r.iso.Relay().PID, tree, r.o.SampleEvery, r.o.Grace, r.out, r.log)
	if r.iso.Active() {
		r.iso.Watch(func() {
			why := "the relay to the backend's namespace exited"
			if r.why.CompareAndSwap(nil, &why) {
				watchdog.RequestStop(signals)
			}
		})
	}
	parentGone := make(chan watchdog.Reason, 1)
	if r.ln != nil {
		go serveClaims(r.ln, &r.keys, r.claims, r.ended, r.log)
	}
	first.last = time.Now() // the start line
	go r.follow(first, signals, parentGone)
	code := watchdog.RunTree(child, tree, signals, parentGone, r.o.Grace, r.log)
	if r.ln != nil {
		r.ln.Close() // removes the socket: nothing is left to claim
	}
	r.smp.close()
	watchdog.ReleaseTreeCgroup(tree, r.log)
	rel.drain(2 * time.Second)
	r.cleanup()
	why := "the backend exited"
	if w := r.why.Load(); w != nil {
		why = *w
	}
	r.log.Info("the tree is gone", "code", code, "why", why)
	ex := RemoteExit{Code: code, Why: why}
	if code > 128 {
		ex.Signal = syscall.Signal(code - 128).String()
	}
	r.out.sendJSON(TagExit, ex)
	return code
}

// awaitStart reads the token and the start line. EOF, "stop" or silence
// for the heartbeat grace first means no start.
func (r *remoteRun) awaitStart(lines <-chan string) (token string, ok bool) {
	timer := time.NewTimer(r.o.HeartbeatGrace)
	defer timer.Stop()
	for {
		select {
		case line, open := <-lines:
			if !open {
				return "", false
			}
			tag, arg, _ := strings.Cut(line, " ")
			switch tag {
			case TagToken:
				token = arg
			case TagSecret:
				r.setSecret(arg)
			case TagPing:
				r.out.send(TagPong, arg)
			case TagStart:
				return token, true
			case TagStop:
				return "", false
			}
			timer.Reset(r.o.HeartbeatGrace)
		case <-timer.C:
			return "", false
		}
	}
}

// start prepares the ownership directory, starts the backend held (in a
// namespace of its own where it is to be isolated), writes our session
// file and Hermes' lock naming it, then lets it exec.
func (r *remoteRun) start(self proc.Identity, token string) (proc.Identity, *cgroup.Cgroup, *relay, error) {
	argv, env, err := r.prepare(self, token)
	if err != nil {
		return proc.Identity{}, nil, nil, err
	}
	r.iso = r.isolate()
	tree, cgroupErr := watchdog.MakeTreeCgroup(r.o.Cgroup, r.log)
	rel, err := newRelay(filepath.Join(r.dir, r.o.SpawnNonce+".log"), r.out)
	if err != nil {
		return proc.Identity{}, nil, nil, err
	}
	child, goAhead, err := r.startHeld(argv, env, tree, rel, r.iso)
	if err != nil && tree != nil {
		_ = tree.Remove()
		cgroupErr = fmt.Errorf("watchdog: start inside %s: %w", tree.Path(), err)
		tree = nil
		child, goAhead, err = r.startHeld(argv, env, nil, rel, r.iso)
	}
	if err != nil {
		rel.drain(0)
		return proc.Identity{}, nil, nil, err
	}
	if err = r.iso.Started(child.PID); err != nil {
		// The probe said the host allows it: the backend is not run
		// exposed instead without the person choosing so.
		err = fmt.Errorf("watchdog-remote: %w (isolation can be turned off: HERMES_DESKTOP_NETNS=off)", err)
	} else {
		err = r.own(self, child, argv[0], token, tree)
	}
	if err != nil {
		goAhead.Close() // EOF: the held child exits without running the backend
		_ = syscall.Kill(child.PID, syscall.SIGKILL)
		rel.drain(time.Second)
		return proc.Identity{}, nil, nil, err
	}
	r.listen()
	_, err = goAhead.Write([]byte{'g'})
	goAhead.Close()
	if err != nil {
		r.log.Warn("release the held backend", "err", err)
	}
	r.report = r.backendReport(child, argv, tree, cgroupErr)
	r.out.sendJSON(TagBackend, r.report)
	return child, tree, rel, nil
}

// prepare checks the token, makes the lock directory, and resolves the
// backend's command line and environment.
func (r *remoteRun) prepare(self proc.Identity, token string) (argv, env []string, err error) {
	if r.home, err = os.UserHomeDir(); err != nil {
		return nil, nil, fmt.Errorf("watchdog-remote: %w", err)
	}
	if r.o.Token != TokenNone && !validToken(token) {
		return nil, nil, errors.New("watchdog-remote: no valid session token from the app")
	}
	if err := r.makeLockDir(); err != nil {
		return nil, nil, err
	}
	if argv, err = r.command(token); err != nil {
		return nil, nil, err
	}
	if env, err = watchdog.ChildEnv(self, ""); err != nil {
		return nil, nil, err
	}
	env = append(env, r.o.Env...)
	switch r.o.Token {
	case TokenEnv:
		env = append(env, hermes.EnvDesktop+"="+hermes.DesktopOn, hermes.EnvSessionToken+"="+token)
	case TokenFile:
		env = append(env, hermes.EnvDesktop+"="+hermes.DesktopOn)
	}
	return argv, env, nil
}

// listen makes the claim socket; without it the run goes on, but no EOF
// keeps the tree (nothing could claim it).
func (r *remoteRun) listen() {
	ln, err := listenClaim(ClaimSocket(r.home, r.o.OwnershipID))
	if err != nil {
		r.log.Warn("no claim socket: the tree ends with its lifeline", "err", err)
		return
	}
	r.ln = ln
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "{}" // only plain structs are marshalled
	}
	return string(b)
}

func validToken(t string) bool {
	if len(t) != hermes.SSHTokenLen {
		return false
	}
	for _, c := range t {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// backendReport is the "backend" line.
func (r *remoteRun) backendReport(child proc.Identity, argv []string, tree *cgroup.Cgroup, cgroupErr error) RemoteBackend {
	rb := RemoteBackend{Backend: child, Argv: argv, LockDir: r.dir, Containment: "process-tree"}
	if r.ln != nil {
		rb.ClaimSocket = r.ln.Addr().String()
	}
	if runtime.GOOS == "linux" {
		rb.Reason = "no cgroup: the watchdog is a subreaper and tears down its process group and tree"
	} else {
		rb.Reason = "no cgroups on " + runtime.GOOS + ": the watchdog tears down its process group and tree"
	}
	if tree != nil {
		rb.Containment, rb.Cgroup, rb.Reason = "cgroup", tree.Path(), ""
	} else if cgroupErr != nil {
		rb.Reason = "no cgroup (" + cgroupErr.Error() + "): the watchdog is a subreaper and tears down its process group and tree"
	}
	reportIsolation(&rb, r.iso)
	return rb
}
