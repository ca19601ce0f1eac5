package reap

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"hermes-desktop/contract/hermes"
	"hermes-desktop/lockfile"
	"hermes-desktop/platform/proc"
)

// Defaults, in one place.
const (
	// DefaultMinOrphanAge is how old an unrecorded orphan must be before it
	// is reaped: younger, it may be a backend still starting up.
	DefaultMinOrphanAge = 180 * time.Second
	// DefaultGrace is the time between SIGTERM and SIGKILL.
	DefaultGrace = 5 * time.Second
)

// Action is what the reaper did, or would do, with a candidate.
type Action string

// Actions.
const (
	ActionReaped    Action = "reaped"
	ActionSpared    Action = "spared"
	ActionWouldReap Action = "would-reap" // dry run
	ActionFailed    Action = "failed"     // meant to reap, but it survived SIGKILL or could not be signalled
)

// Reason words, one per rule.
const (
	ReasonOwned            = "owned"
	ReasonOwnerDead        = "owner-dead"
	ReasonOrphanNoRecord   = "orphan-no-record"
	ReasonTooYoung         = "too-young"
	ReasonNotOrphan        = "not-orphan"
	ReasonSSHLock          = "ssh-lock"
	ReasonSSHTokenFile     = "ssh-token-file"
	ReasonGatewayPIDFile   = "gateway-pidfile"
	ReasonServiceManaged   = "service-managed"
	ReasonExcludedEnv      = "excluded-env"
	ReasonOtherUser        = "other-user"
	ReasonAncestor         = "ancestor"
	ReasonFixedPort        = "fixed-port"
	ReasonNotLoopback      = "not-loopback"
	ReasonIdentityMismatch = "identity-mismatch"
	ReasonFailClosed       = "fail-closed"
)

// Decision is the reaper's verdict on one process.
type Decision struct {
	PID     int      `json:"pid"`
	Action  Action   `json:"action"`
	Reason  string   `json:"reason"`
	Detail  string   `json:"detail"`
	Cmdline []string `json:"cmdline"`

	id     proc.Identity    // what was checked, for the kill
	record *lockfile.Record // the record that matched, if any
}

// Report is what a reap found and did.
type Report struct {
	StartedAt time.Time  `json:"started_at"`
	DryRun    bool       `json:"dry_run"`
	Scanned   int        `json:"scanned"`
	ElapsedMS float64    `json:"elapsed_ms"`
	Decisions []Decision `json:"decisions"`
	// Cgroups are the decisions on leftover backend cgroups (Linux), made
	// before the processes are looked at: a reaped cgroup's members are
	// gone by then.
	Cgroups []CgroupDecision `json:"cgroups,omitempty"`
	// RecordsRemoved lists the nonces of records dropped (their processes
	// gone or their PIDs reused); SetAside the record files moved aside.
	RecordsRemoved []string `json:"records_removed,omitempty"`
	SetAside       []string `json:"set_aside,omitempty"`
}

// Count returns how many process decisions have action a.
func (r *Report) Count(a Action) int { return countAction(r.Decisions, a) }

// Summary says what a reap did in one line: "reaped 2, spared 3 (scanned
// 412 processes in 21.3 ms)".
func (r *Report) Summary() string {
	s := fmt.Sprintf("reaped %d, spared %d", r.Count(ActionReaped), r.Count(ActionSpared))
	if n := r.Count(ActionWouldReap); n > 0 {
		s += fmt.Sprintf(", would reap %d", n)
	}
	if n := r.Count(ActionFailed); n > 0 {
		s += fmt.Sprintf(", failed %d", n)
	}
	if len(r.Cgroups) > 0 {
		s += fmt.Sprintf("; cgroups: reaped %d, spared %d", countAction(r.Cgroups, ActionReaped), countAction(r.Cgroups, ActionSpared))
		if n := countAction(r.Cgroups, ActionWouldReap); n > 0 {
			s += fmt.Sprintf(", would reap %d", n)
		}
		if n := countAction(r.Cgroups, ActionFailed); n > 0 {
			s += fmt.Sprintf(", failed %d", n)
		}
	}
	return s + fmt.Sprintf(" (scanned %d processes in %.1f ms)", r.Scanned, r.ElapsedMS)
}

func countAction[D Decision | CgroupDecision](ds []D, a Action) int {
	n := 0
	for _, d := range ds {
		if action(d) == a {
			n++
		}
	}
	return n
}

func action[D Decision | CgroupDecision](d D) Action {
	switch d := any(d).(type) {
	case Decision:
		return d.Action
	case CgroupDecision:
		return d.Action
	}
	return ""
}

// Options configure a reap. Zero values take the documented defaults; the
// zero Options (once StateDir and HermesHome are set) is the cautious boot
// reap: 180 s minimum age, 5 s grace.
type Options struct {
	// StateDir holds the ownership records and owner locks; required.
	StateDir string
	// HermesHome holds the SSH locks and the gateway PID file; required
	// ("" would read them relative to the working directory).
	HermesHome string
	// UserHome is the user's home directory: Hermes Desktop writes SSH
	// locks under UserHome/.hermes/desktop-ssh whatever HERMES_HOME is, so
	// they are read there too. "" means os.UserHomeDir(); when that fails,
	// unrecorded orphans fail closed.
	UserHome string
	// MinAge is how old an unrecorded orphan must be. nil means
	// DefaultMinOrphanAge (180 s); a pointer to 0 means no minimum, as
	// `reap --min-age 0s` asks: every unrecorded orphan is old enough. A
	// pointer, so that the zero Options never means "no minimum".
	MinAge *time.Duration
	// Grace is the time between SIGTERM and SIGKILL; 0 means 5 s.
	Grace time.Duration
	// DryRun decides without signalling, deleting or moving anything.
	DryRun bool
	// Exclude lists PIDs never to signal; nil means $HERMES_DESKTOP_CHILD_PID.
	Exclude []int
	// Only, when non-nil, limits the reap to these PIDs (those of a dry run
	// the user confirmed); each is reaped only if it still qualifies.
	// Leftover cgroups are then left alone.
	Only []int
	// CgroupParent is where leftover backend cgroups are looked for,
	// besides the paths the records name; "" means the reaper's own cgroup
	// (where a launcher creates its backends'). Tests point it at a cgroup
	// of their own.
	CgroupParent string
	// Logger receives one record per decision; nil discards them.
	Logger *slog.Logger
}

// ExcludedFromEnv parses HERMES_DESKTOP_CHILD_PID (PIDs separated by commas
// or spaces).
func ExcludedFromEnv() []int {
	var out []int
	for _, f := range strings.FieldsFunc(os.Getenv("HERMES_DESKTOP_CHILD_PID"), func(r rune) bool { return r == ',' || r == ' ' }) {
		if n, err := strconv.Atoi(f); err == nil && n > 0 {
			out = append(out, n)
		}
	}
	return out
}

// Run runs the boot reaper over stateDir's records and the process table.
// It returns an error only when it could not look at all; a partial view
// makes individual decisions fail closed instead.
func Run(ctx context.Context, o Options) (*Report, error) {
	if o.minAge() < 0 || o.Grace < 0 {
		return nil, fmt.Errorf("reap: negative minimum age (%v) or grace period (%v)", o.minAge(), o.Grace)
	}
	o.applyDefaults()
	start := time.Now()
	ev, err := readEvidence(o)
	if err != nil {
		return nil, err
	}
	r := newReaper(o, osView{stateDir: o.StateDir}, os.Getpid(), os.Geteuid(), ev)
	report := &Report{StartedAt: start, DryRun: o.DryRun, SetAside: r.setAside}
	report.Cgroups = r.reapCgroups(ctx)
	if report.Decisions, report.Scanned, err = r.judge(); err != nil {
		return nil, err
	}
	var doomed []*Decision // pointers taken only now that the slice is complete
	for i := range report.Decisions {
		if report.Decisions[i].Action == ActionWouldReap {
			doomed = append(doomed, &report.Decisions[i])
		}
	}
	if !o.DryRun && len(doomed) > 0 {
		r.kill(ctx, report.Decisions, doomed)
	}
	if !o.DryRun {
		report.RecordsRemoved = r.dropRecords()
	}
	report.ElapsedMS = float64(time.Since(start).Microseconds()) / 1000
	for _, d := range report.Cgroups {
		o.Logger.Info("reap", "cgroup", d.Cgroup, "action", d.Action, "reason", d.Reason, "detail", d.Detail)
	}
	for _, d := range report.Decisions {
		o.Logger.Info("reap", "pid", d.PID, "action", d.Action, "reason", d.Reason, "detail", d.Detail)
	}
	return report, nil
}

// minAge resolves MinAge: nil is the default, anything else as given.
func (o *Options) minAge() time.Duration {
	if o.MinAge == nil {
		return DefaultMinOrphanAge
	}
	return *o.MinAge
}

func (o *Options) applyDefaults() {
	if o.MinAge == nil {
		o.MinAge = new(DefaultMinOrphanAge)
	}
	if o.Grace == 0 {
		o.Grace = DefaultGrace
	}
	if o.Exclude == nil {
		o.Exclude = ExcludedFromEnv()
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
}

// evidence is what a reap reads from files before it looks at any process:
// our ownership records and other programs' claims.
type evidence struct {
	records []*lockfile.Record
	bad     []lockfile.SetAside // records that could not be read
	ssh     []lockfile.ForeignClaim
	sshErr  error // an SSH lock directory could not be listed
	gateway []lockfile.ForeignClaim
}

// readEvidence loads the records (a dry run only peeks: it changes
// nothing, not even a corrupt file's name) and the foreign claims.
func readEvidence(o Options) (evidence, error) {
	rs, err := lockfile.OpenRecords(o.StateDir)
	if err != nil {
		return evidence{}, fmt.Errorf("reap: %w", err)
	}
	load := rs.LoadAll
	if o.DryRun {
		load = rs.Peek
	}
	var ev evidence
	if ev.records, ev.bad, err = load(); err != nil {
		return evidence{}, fmt.Errorf("reap: %w", err)
	}
	ev.ssh, ev.sshErr = sshClaims(o)
	ev.gateway = lockfile.GatewayClaims(o.HermesHome)
	return ev, nil
}

// sshClaims reads the SSH locks in both places Hermes keeps them:
// $HERMES_HOME/desktop-ssh and ~/.hermes/desktop-ssh. A home directory
// that cannot be found is an error like an unreadable lock directory: the
// locks there are unknown.
func sshClaims(o Options) ([]lockfile.ForeignClaim, error) {
	home, homeErr := o.UserHome, error(nil)
	if home == "" {
		if home, homeErr = os.UserHomeDir(); homeErr != nil {
			homeErr = fmt.Errorf("reap: find the home directory for ~/%s/%s: %w", hermes.HomeDirName, hermes.SSHDirName, homeErr)
			home = ""
		}
	}
	claims, err := lockfile.SSHLockClaims(hermes.SSHLockDirs(o.HermesHome, home)...)
	return claims, errors.Join(homeErr, err)
}

// reaper holds what one reap knows before it looks at any process.
type reaper struct {
	o         Options
	v         view // every look at a live process or an owner lock
	self      int
	uid       int
	ancestors map[int]bool // filled on first use by isAncestor
	exclude   map[int]bool
	only      map[int]bool // nil: every process
	records   []*lockfile.Record
	byPID     map[int]*lockfile.Record
	byNonce   map[string]*lockfile.Record
	setAside  []string
	// failClosed, when set, says why orphans without a record cannot be
	// reaped this time (a corrupt record, an unreadable lock directory).
	failClosed string
	claims     []claim
	ownUnit    string
	// heirs are the descendants dead owners' records list, by PID.
	heirs map[int]*recordedHeir
}

// claim is a PID that someone else's ownership file names.
type claim struct {
	pid    int
	reason string // ReasonSSHLock or ReasonGatewayPIDFile; ReasonFailClosed for a malformed file
	detail string
}

// newReaper prepares a reap by process self (running as uid) that sees
// the system through v.
func newReaper(o Options, v view, self, uid int, ev evidence) *reaper {
	r := &reaper{o: o, v: v, self: self, uid: uid, ancestors: map[int]bool{}, exclude: map[int]bool{},
		byPID: map[int]*lockfile.Record{}, byNonce: map[string]*lockfile.Record{}}
	for _, pid := range o.Exclude {
		r.exclude[pid] = true
	}
	if o.Only != nil {
		r.only = map[int]bool{}
		for _, pid := range o.Only {
			r.only[pid] = true
		}
	}
	r.useRecords(ev.records, ev.bad)
	r.useClaims(ev)
	r.ownUnit = v.ServiceUnit(self)
	return r
}

func (r *reaper) useRecords(records []*lockfile.Record, bad []lockfile.SetAside) {
	r.records = records
	for _, rec := range records {
		r.byNonce[rec.Nonce] = rec
		for _, id := range []*proc.Identity{rec.Shim, rec.Backend} {
			if id != nil {
				r.byPID[id.PID] = rec
			}
		}
	}
	for _, b := range bad {
		name := b.File
		if b.Moved != "" {
			name += " (moved aside to " + b.Moved + ")"
		}
		r.setAside = append(r.setAside, name)
		r.failClosed = fmt.Sprintf("record %s could not be read (%v), so it may own this process", b.File, b.Reason)
	}
}

// useClaims takes in the SSH locks and gateway PID files. An unreadable
// lock directory makes every unrecorded orphan fail closed; a malformed
// file spares at least the PID it seems to name.
func (r *reaper) useClaims(ev evidence) {
	if ev.sshErr != nil {
		r.failClosed = fmt.Sprintf("an SSH lock directory could not be read (%v)", ev.sshErr)
	}
	for _, c := range ev.ssh {
		r.addClaim(c, ReasonSSHLock, "a remote SSH backend's lock")
	}
	for _, c := range ev.gateway {
		if c.Err == nil && !r.gatewayAlive(c) {
			continue // a stale PID file names nobody
		}
		r.addClaim(c, ReasonGatewayPIDFile, "the gateway's PID file")
	}
}

func (r *reaper) addClaim(c lockfile.ForeignClaim, reason, what string) {
	if c.Err != nil {
		if c.PID == 0 {
			r.failClosed = fmt.Sprintf("%s %s is malformed (%v) and names no readable PID", what, c.Path, c.Err)
			return
		}
		r.claims = append(r.claims, claim{pid: c.PID, reason: ReasonFailClosed,
			detail: fmt.Sprintf("%s %s is malformed (%v) but seems to name this process", what, c.Path, c.Err)})
		return
	}
	r.claims = append(r.claims, claim{pid: c.PID, reason: reason, detail: fmt.Sprintf("named by %s %s", what, c.Path)})
}

// gatewayAlive applies the PID file rule: the PID counts only while alive
// and, when the file records a start time, only if it still matches.
func (r *reaper) gatewayAlive(c lockfile.ForeignClaim) bool {
	p, err := r.v.Stat(c.PID)
	if err != nil {
		return !errors.Is(err, proc.ErrNotFound) // unreadable: keep the claim
	}
	id := p.Identity()
	if running, err := r.v.Running(id); err == nil && !running {
		return false
	}
	if c.StartTicks == 0 || !strings.HasPrefix(id.Start, "linux:") {
		return true // nothing to compare with: keep the claim
	}
	return id.Start == "linux:"+strconv.FormatUint(c.StartTicks, 10)
}
