// Package remotewd is the remote watchdog: what a backend on another host
// runs behind (RemoteMain), and the wire protocol between it and the app.
package remotewd

// The wire protocol between the app and the remote watchdog, the shim a
// remote backend runs behind on its host (DESIGN "Remote backends (SSH)"),
// defined here and nowhere else: backend/remote writes and reads it with
// these names, RemoteMain reads and writes it with the same ones.
//
// Command line, run over ssh on the remote host (RemoteOptions.Args):
//
//	<core> watchdog-remote --ownership-id=ID --spawn-nonce=N --token=file|env|none \
//	    --heartbeat-grace=30s --grace=5s --sample-every=5s [--cgroup=NAME] [--profile=P] \
//	    [--netns=off] -- CMD ARGS...
//
// The channel is the lifeline. stdin, app to shim, one line each:
//   - "token <64 hex>": the session token, before "start" (never on a
//     command line: --token says how CMD gets it: Hermes' one-shot token
//     file plus --ssh-session-token-file and --ssh-owner-nonce (file), the
//     environment (env), or not at all (none: a dashboard makes its own);
//   - "start": the app is ready to follow the run; CMD may start;
//   - "ping <n>": the heartbeat; the shim answers "pong <n>" at once;
//   - "port <n>": the port CMD announced, for its lock;
//   - "kill <pid> <start>": stop that process of CMD's tree (the leak
//     guard's duplicate policy): SIGTERM, SIGKILL after --grace; refused
//     (fail closed) unless a process of the tree has that PID and start
//     time, and never CMD itself (see sample_unix.go);
//   - "secret <64 hex>": the session secret, after "token" (any time
//     later: a new one, from a successor that claimed with a one-time
//     secret); kept only in the app's memory and our 0600 session file;
//   - "handover <64 hex> <window>": an update's predecessor lets go: an
//     EOF within the window (a Go duration, at most MaxHandoverWindow)
//     keeps the tree for the window, waiting for a claim with that
//     one-time secret, valid once (a handover no EOF followed in time
//     lapses);
//   - "stop": tear CMD's tree down now.
//
// Every line counts as a heartbeat, and the app beats every
// BeatEvery(heartbeat grace). No line for the heartbeat grace (a partition
// that left the connection open) tears CMD's tree down. EOF right after a
// line (younger than two beats: the app quit or died, its ssh client
// closed the connection) tears it down at once, as the parent's death does
// for a local shim. EOF after a longer silence (the connection went quiet
// first: sleep, a Wi-Fi change, a stopped then killed ssh) keeps the tree
// until the heartbeat grace, counted from the last line, ends, waiting for
// a claim; EOF after a handover keeps it for the handover's window.
//
// Claims. The watchdog listens on ClaimSocket (0600, its directory 0700).
// A connection there sends one line, "claim <secret>" (the session secret,
// or a handover's one-time secret); on a match the watchdog answers
// "claimed {RemoteClaimed}" and that connection is the lifeline from then
// on: the same lines both ways as the channel; the old lifeline is no
// longer read or written. A wrong secret gets "refused <why>" and the
// connection is closed (logged; nothing is signalled). What the backend
// prints while no lifeline is attached is dropped here; its log file keeps
// it.
//
// stdout, shim to app, "<tag> <payload>" lines: "hello {RemoteHello}",
// then "backend {RemoteBackend}" or "error <text>", then any number of
// "out <line>", "err <line>" (CMD's output, also kept in the lock
// directory's <spawn nonce>.log), "pong <n>", "sample {RemoteSample}"
// (CMD's tree, every --sample-every), "killed {RemoteKilled}" (what a
// kill line did), and last "exit {RemoteExit}"
// once the tree is gone and the lock removed. stderr carries the shim's
// own log.
//
// Before CMD exists, the shim writes its ownership: our session file
// ~/.hermes-desktop/sessions/<ownership id>.json (RemoteSession), then
// Hermes' lock ~/.hermes/desktop-ssh/<ownership id>/backend.lock.json
// naming CMD's PID (CMD is started held: RemoteHoldSubcommand waits for
// the shim's go-ahead, then execs it, keeping the PID): no sibling scan
// ever sees CMD without its lock (Hermes #92008). Both are removed when the
// tree is gone.
//
// Isolation (watchdog/netns): unless --netns=off, where the host lets an
// unprivileged user create user and network namespaces (a real trial, the
// probe), CMD runs in a user+net namespace of its own: its port is reached
// only through RemoteBackend.Socket (0600, in a 0700 directory under
// ~/.hermes-desktop/netns), its way out is an HTTP proxy the shim serves
// outside. Otherwise RemoteBackend says why not, and CMD's port is open to
// every account on the host, as a plain 127.0.0.1 listener is.

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"hermes-desktop/contract/hermes"
	"hermes-desktop/platform/proc"
	"hermes-desktop/watchdog"
)

// RemoteSubcommand runs the remote watchdog; RemoteHoldSubcommand is the
// held start of its backend (internal to the remote watchdog).
const (
	RemoteSubcommand     = "watchdog-remote"
	RemoteHoldSubcommand = "watchdog-hold"
)

// Flag names of the remote watchdog, without dashes.
const (
	FlagOwnershipID    = "ownership-id"
	FlagSpawnNonce     = "spawn-nonce"
	FlagToken          = "token"
	FlagHeartbeatGrace = "heartbeat-grace"
	FlagProfile        = "profile"
	FlagEnv            = "env"
	FlagSampleEvery    = "sample-every"
	FlagNetns          = "netns"
)

// How the backend is isolated (FlagNetns, RemoteBackend.Isolation).
const (
	// NetnsAuto (the flag's default) isolates the backend where the host
	// allows it; NetnsOff never does.
	NetnsAuto = "auto"
	NetnsOff  = "off"
	// IsolationNetns: the backend runs in a user+net namespace of its
	// own, reached through RemoteBackend.Socket. IsolationNone: it runs
	// in the host's network, its port open to every account there.
	IsolationNetns = "netns"
	IsolationNone  = "none"
)

// How the remote backend gets its session token (FlagToken).
const (
	TokenFile = "file"
	TokenEnv  = "env"
	TokenNone = "none"
)

// Line tags, both directions.
const (
	TagToken   = "token"
	TagStart   = "start"
	TagPing    = "ping"
	TagPong    = "pong"
	TagPort    = "port"
	TagStop    = "stop"
	TagHello   = "hello"
	TagBackend = "backend"
	TagError   = "error"
	TagOut     = "out"
	TagErr     = "err"
	TagExit    = "exit"
	TagSample  = "sample"
	TagKill    = "kill"
	TagKilled  = "killed"
	// The claim protocol (see above).
	TagSecret   = "secret"
	TagHandover = "handover"
	TagClaim    = "claim"
	TagClaimed  = "claimed"
	TagRefused  = "refused"
)

// BeatEvery is how often the app pings for a heartbeat grace: a tenth of
// it, between 500 ms and 3 s. Both sides use it: the app to beat, the
// watchdog to tell an EOF right after a line (the app closed its end) from
// one after a silence (the connection went quiet first).
func BeatEvery(grace time.Duration) time.Duration {
	return min(max(grace/10, 500*time.Millisecond), 3*time.Second)
}

// SecretLen is the length of a session or one-time secret: 32 random
// bytes in lowercase hex.
const SecretLen = 64

// NewSecret makes a session or one-time secret.
func NewSecret() (string, error) {
	b := make([]byte, SecretLen/2)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("remotewd: secret: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// ValidSecret says whether s has a secret's form.
func ValidSecret(s string) bool {
	if len(s) != SecretLen {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// MaxHandoverWindow bounds a handover's window: past it the predecessor's
// backend would outlive both apps for nothing.
const MaxHandoverWindow = 5 * time.Minute

// FormatHandover is the handover line for a one-time secret and window.
func FormatHandover(secret string, window time.Duration) string {
	return TagHandover + " " + secret + " " + window.String()
}

// ParseHandover reads a handover line's argument ("<secret> <window>").
func ParseHandover(arg string) (secret string, window time.Duration, err error) {
	secret, w, ok := strings.Cut(arg, " ")
	if !ok || !ValidSecret(secret) {
		return "", 0, errors.New("handover: not <64 hex> <window>")
	}
	window, err = time.ParseDuration(w)
	if err != nil || window <= 0 || window > MaxHandoverWindow {
		return "", 0, fmt.Errorf("handover: window %q is not a duration in (0, %s]", w, MaxHandoverWindow)
	}
	return secret, window, nil
}

// ClaimSocket is the claim socket of a run, under the remote user's home.
func ClaimSocket(home, ownershipID string) string {
	return filepath.Join(home, RemoteSessionsDir, ownershipID+".sock")
}

// RemoteClaimed answers a claim that matched: the backend as its
// "backend" line said, the watchdog, and the port the lock holds (0 until
// a "port" line gave one).
type RemoteClaimed struct {
	RemoteBackend
	Shim proc.Identity `json:"shim"`
	Port int           `json:"port,omitempty"`
}

// RemoteOptions are the remote watchdog's flags.
type RemoteOptions struct {
	OwnershipID, SpawnNonce string
	Token                   string // TokenFile, TokenEnv or TokenNone
	HeartbeatGrace, Grace   time.Duration
	// SampleEvery is how often the backend's tree is sampled and sent
	// (TagSample); 0 turns sampling off.
	SampleEvery     time.Duration
	Cgroup, Profile string
	// Env are KEY=VALUE entries added to the backend's environment
	// (PYTHONUNBUFFERED=1 for a custom command, as a local one gets).
	Env []string
	// Netns is NetnsAuto or NetnsOff; "" means NetnsAuto.
	Netns string
	Argv  []string
}

// Args is o as the remote watchdog's arguments after RemoteSubcommand.
func (o RemoteOptions) Args() []string {
	args := []string{
		flagArg(FlagOwnershipID, o.OwnershipID),
		flagArg(FlagSpawnNonce, o.SpawnNonce),
		flagArg(FlagToken, o.Token),
		flagArg(FlagHeartbeatGrace, o.HeartbeatGrace.String()),
		flagArg(watchdog.FlagGrace, o.Grace.String()),
		flagArg(FlagSampleEvery, o.SampleEvery.String()),
	}
	if o.Cgroup != "" {
		args = append(args, flagArg(watchdog.FlagCgroup, o.Cgroup))
	}
	if o.Profile != "" {
		args = append(args, flagArg(FlagProfile, o.Profile))
	}
	for _, kv := range o.Env {
		args = append(args, flagArg(FlagEnv, kv))
	}
	if o.Netns != "" {
		args = append(args, flagArg(FlagNetns, o.Netns))
	}
	return append(append(args, argsEnd), o.Argv...)
}

// RemoteHello is the remote watchdog's first line.
type RemoteHello struct {
	Version  string        `json:"version"`
	Shim     proc.Identity `json:"shim"`
	Platform string        `json:"platform"` // GOOS/GOARCH
}

// RemoteBackend says the backend started: its identity, the command it
// runs (the resolved executable first), what holds its tree, where its
// ownership lives, and how it is isolated from the host's other accounts.
type RemoteBackend struct {
	Backend     proc.Identity `json:"backend"`
	Argv        []string      `json:"argv"`
	Containment string        `json:"containment"`
	Reason      string        `json:"reason,omitempty"`
	Cgroup      string        `json:"cgroup,omitempty"`
	LockDir     string        `json:"lock_dir"`
	// Isolation is IsolationNetns or IsolationNone ("" from an older
	// core: none).
	Isolation string `json:"isolation,omitempty"`
	// Socket is, when isolated, the unix socket (0600, in a 0700
	// directory) that reaches the backend's port: the forward's target.
	Socket string `json:"socket,omitempty"`
	// Relay is, when isolated, the relay inside the namespace (part of
	// the tree, torn down with it, not in the samples).
	Relay *proc.Identity `json:"relay,omitempty"`
	// IsolationReason says, when not isolated, why not.
	IsolationReason string `json:"isolation_reason,omitempty"`
	// ClaimSocket is where a claim reaches the watchdog (ClaimSocket);
	// "" when it could not listen (then no EOF keeps the tree).
	ClaimSocket string `json:"claim_socket,omitempty"`
}

// RemoteExit is the remote watchdog's last line: how the backend ended
// and why the tree was torn down.
type RemoteExit struct {
	Code   int    `json:"code"`
	Signal string `json:"signal,omitempty"`
	Why    string `json:"why"`
}

// Sampling: the defaults of FlagSampleEvery.
const (
	DefaultSampleEvery = 5 * time.Second
	MinSampleEvery     = 100 * time.Millisecond
)

// RemoteSample is one look at the backend's tree (TagSample): what the
// app's leak guard judges and its Process tree shows, as a local tree's
// sample is. Its PIDs and times are the host's.
type RemoteSample struct {
	At time.Time `json:"at"`
	// NofileSoft is the backend's soft RLIMIT_NOFILE (0: unlimited or
	// unknown).
	NofileSoft int64 `json:"nofile_soft,omitempty"`
	// Processes are the backend (first) and every process of its tree.
	Processes []RemoteProc `json:"processes"`
}

// RemoteProc is one process of a RemoteSample.
type RemoteProc struct {
	PID     int       `json:"pid"`
	PPID    int       `json:"ppid"`
	Start   string    `json:"start"` // its start marker (proc.Identity.Start)
	Started time.Time `json:"started"`
	Argv    []string  `json:"argv,omitempty"`
	RSS     int64     `json:"rss"`
	FDs     int       `json:"fds"`
}

// Identity is the process's identity on its host.
func (p RemoteProc) Identity() proc.Identity { return proc.Identity{PID: p.PID, Start: p.Start} }

// RemoteKilled answers a kill line (TagKilled): whether the process was
// asked to stop, or why not.
type RemoteKilled struct {
	PID   int    `json:"pid"`
	Start string `json:"start"`
	Done  bool   `json:"done"`
	Why   string `json:"why"`
}

// FormatKill is the kill line for id.
func FormatKill(id proc.Identity) string {
	return TagKill + " " + strconv.Itoa(id.PID) + " " + id.Start
}

// ParseKill reads a kill line's argument ("<pid> <start>").
func ParseKill(arg string) (proc.Identity, error) {
	pid, start, ok := strings.Cut(arg, " ")
	n, err := strconv.Atoi(pid)
	id := proc.Identity{PID: n, Start: start}
	if !ok || err != nil {
		return id, fmt.Errorf("kill %q: not <pid> <start>", arg)
	}
	if err := id.Validate(); err != nil {
		return id, fmt.Errorf("kill %q: %w", arg, err)
	}
	return id, nil
}

// RemoteSession is our own ownership record on the remote host, beside
// Hermes' lock: what a later remote reap needs to prove a leftover ours
// and its owner gone.
type RemoteSession struct {
	OwnershipID string        `json:"ownership_id"`
	SpawnNonce  string        `json:"spawn_nonce"`
	Shim        proc.Identity `json:"shim"`
	Backend     proc.Identity `json:"backend"`
	Created     time.Time     `json:"created"`
	// Cgroup is the backend's tree cgroup (under the cgroup2 mount), ""
	// when there is none: a reap removes it once the tree is gone, or the
	// host keeps an empty one for each watchdog that was killed.
	Cgroup string `json:"cgroup,omitempty"`
	// Secret is the session secret a claim must present ("" when the app
	// sent none: no claim matches).
	Secret string `json:"secret,omitempty"`
}

// RemoteSessionsDir is where RemoteSession files live, under the remote
// user's home.
const RemoteSessionsDir = ".hermes-desktop/sessions"

func flagArg(name, value string) string { return "--" + name + "=" + value }

// argsEnd separates the flags from the backend's command line.
const argsEnd = "--"

// FormatPing is the heartbeat line n.
func FormatPing(n uint64) string { return TagPing + " " + strconv.FormatUint(n, 10) }

// ParseRemoteFlags parses the remote watchdog's arguments (after
// RemoteSubcommand): the inverse of RemoteOptions.Args.
func ParseRemoteFlags(args []string, stderr io.Writer) (RemoteOptions, error) {
	var o RemoteOptions
	fs := flag.NewFlagSet(RemoteSubcommand, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.OwnershipID, FlagOwnershipID, "", "the backend's Hermes SSH ownership id (32 lowercase hex digits)")
	fs.StringVar(&o.SpawnNonce, FlagSpawnNonce, "", "this spawn's nonce (16 lowercase hex digits)")
	fs.StringVar(&o.Token, FlagToken, TokenNone, "how CMD gets the session token: file, env or none")
	fs.DurationVar(&o.HeartbeatGrace, FlagHeartbeatGrace, 30*time.Second, "tear down after this long without a line from the app")
	fs.DurationVar(&o.Grace, watchdog.FlagGrace, 5*time.Second, "time between SIGTERM and SIGKILL")
	fs.DurationVar(&o.SampleEvery, FlagSampleEvery, DefaultSampleEvery, "sample the backend's tree this often (0: never)")
	fs.StringVar(&o.Cgroup, watchdog.FlagCgroup, "", "Linux: start CMD in this cgroup v2 under the watchdog's own, where allowed")
	fs.StringVar(&o.Profile, FlagProfile, "", "the Hermes profile, for the lock")
	fs.StringVar(&o.Netns, FlagNetns, "", "auto: run CMD in a network namespace of its own where the host allows it; off: never")
	fs.Func(FlagEnv, "KEY=VALUE added to CMD's environment (repeatable)", func(kv string) error {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" || strings.ContainsAny(k, "\x00") {
			return fmt.Errorf("%q is not KEY=VALUE", kv)
		}
		o.Env = append(o.Env, kv)
		return nil
	})
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	o.Argv = fs.Args()
	switch {
	case !hermes.ValidOwnershipID(o.OwnershipID):
		return o, fmt.Errorf("watchdog-remote: --%s %q is not 32 lowercase hex digits", FlagOwnershipID, o.OwnershipID)
	case !hermes.ValidSpawnNonce(o.SpawnNonce):
		return o, fmt.Errorf("watchdog-remote: --%s %q is not 16 lowercase hex digits", FlagSpawnNonce, o.SpawnNonce)
	case o.Token != TokenFile && o.Token != TokenEnv && o.Token != TokenNone:
		return o, fmt.Errorf("watchdog-remote: --%s %q is not file, env or none", FlagToken, o.Token)
	case o.HeartbeatGrace <= 0 || o.Grace < 0 || o.SampleEvery < 0:
		return o, fmt.Errorf("watchdog-remote: --%s, --%s and --%s must be positive", FlagHeartbeatGrace, watchdog.FlagGrace, FlagSampleEvery)
	case o.SampleEvery > 0 && o.SampleEvery < MinSampleEvery:
		return o, fmt.Errorf("watchdog-remote: --%s %s is below %s", FlagSampleEvery, o.SampleEvery, MinSampleEvery)
	case o.Netns != "" && o.Netns != NetnsAuto && o.Netns != NetnsOff:
		return o, fmt.Errorf("watchdog-remote: --%s %q is not %s or %s", FlagNetns, o.Netns, NetnsAuto, NetnsOff)
	case o.Cgroup != "" && !watchdog.ValidCgroupName(o.Cgroup):
		return o, fmt.Errorf("watchdog-remote: --%s=%q is not one path element", watchdog.FlagCgroup, o.Cgroup)
	case len(o.Argv) == 0:
		return o, errors.New("watchdog-remote: no command given after --")
	}
	return o, nil
}

// RemoteReapSubcommand ends what dead sessions of ours left on a remote
// host (RemoteReapMain); the app runs it before each remote start.
const RemoteReapSubcommand = "watchdog-remote-reap"

// RemoteReapReport is what a remote reap did, one decision per session
// file of ours.
type RemoteReapReport struct {
	Decisions []RemoteReapDecision `json:"decisions"`
	Error     string               `json:"error,omitempty"`
}

// RemoteReapDecision is what a remote reap did about one session, and why.
type RemoteReapDecision struct {
	OwnershipID string `json:"ownership_id"`
	PID         int    `json:"pid,omitempty"`
	// Action is "killed", "cleaned" (nothing ran; files removed) or
	// "spared".
	Action string `json:"action"`
	Reason string `json:"reason"`
}
