package watchdog

// The wire protocol between the launcher and the watchdog shim, defined here
// and nowhere else: the launcher's side (ShimClient, client.go; backend's
// handoff) builds and writes it with these names, the shim (ShimMain) parses
// and reads it with the same names, and protocol_test.go checks that each
// side inverts the other, across a real process boundary too.
//
// Command line. The launcher starts every backend as (ShimCommand)
//
//	hermes-desktop watchdog --lifeline=3 --report=4 [--owner-exit=5] \
//	    --parent-pid=P --parent-marker=M --nonce=N --grace=5s \
//	    [--cgroup=NAME] -- CMD ARGS...
//
// (on Windows --lifeline and --report carry handle values, not 3 and 4),
// with two pipes (NewShimPipes). The shim inherits its ends of them and
// finds them by the numbers --lifeline and --report carry (ShimPipes.Attach):
// on Unix as extra files at fds 3 and 4 (LifelineFD, ReportFD, ShimFiles);
// on Windows, which has no extra files, as inherited handles whose values
// the flags carry (an inherited handle keeps its value in the child), passed
// in AdditionalInheritedHandles so that no other child inherits them. The
// launcher's ends are never inherited, by the shim or any other child
// (close-on-exec; not inheritable): EOF on the lifeline must mean that the
// launcher is gone.
//
// --owner-exit (Linux) is the fd of the launcher's exit word (OwnerExitFD,
// passed by Attach beside the pipes): a sealed memfd page whose futex word
// one thread of the launcher holds for its whole life, so that the kernel
// marks it as the launcher's exit begins (exitword_linux.go). The shim maps
// it and closes the fd before starting CMD; it watches it only while the
// launcher that passed it owns it.
//
// --cgroup (Linux) names the cgroup v2 the backend's tree is kept in: once
// the start barrier is released, the shim creates NAME under its own
// cgroup (where the launcher left it, or the systemd scope the launcher
// moved it into while it waited at the barrier) and starts CMD directly
// inside, so CMD and everything it ever forks are members. The shim itself
// stays outside, so "populated 0" means the tree is gone.
//
//   - --lifeline, launcher to shim. The shim holds the read end, the
//     launcher the write end. Lines, in this order:
//     1. StartMessage ("start\n"), once, after the launcher has recorded the
//     shim; only then does the shim start CMD. EOF before it means the
//     launcher died before recording the shim: CMD is never started.
//     2. OwnerMessage ("owner <pid> <start marker>\n", FormatOwner), zero or
//     more times, from a new launcher that took the backend over in an
//     adopt-mode handoff; from then on the shim follows that process.
//     3. StopMessage ("stop\n", FormatStop), at most once, from the owner:
//     tear CMD's tree down now, as SIGTERM to the shim does. It is how the
//     launcher asks on Windows, where no signal reaches a shim that has no
//     console (the desktop build has none).
//     EOF at any point after the start means the owner is gone, however it
//     died: the shim tears CMD's tree down.
//   - --report, shim to launcher. After trying to start CMD the shim writes
//     one JSON line (Report) and closes its end: the backend's PID and
//     start marker and the cgroup it was started in (or why it has none),
//     or the error. EOF without a line means the shim died first.
//
// Environment. CMD gets hermes.EnvParentPID and hermes.EnvParentMarker
// naming the shim and hermes.EnvParentNonce set to --nonce (random when
// absent), replacing whatever the shim inherited: Hermes' own parent
// watchdog then follows the shim. EnvGrace is the default of --grace.

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"hermes-desktop/contract/hermes"
	"hermes-desktop/platform/envflag"
	"hermes-desktop/platform/proc"
)

// Subcommand is the word after the executable that runs the shim.
const Subcommand = "watchdog"

// Flag names of the shim's command line, without dashes.
const (
	FlagLifeline     = "lifeline"
	FlagReport       = "report"
	FlagOwnerExit    = "owner-exit"
	FlagParentPID    = "parent-pid"
	FlagParentMarker = "parent-marker"
	FlagNonce        = "nonce"
	FlagGrace        = "grace"
	FlagCgroup       = "cgroup"
)

// argsEnd separates the shim's flags from the backend's command line.
const argsEnd = "--"

// Fd numbers of the pipes the shim inherits on Unix. exec.Cmd.ExtraFiles[i]
// becomes fd firstExtraFD+i in the child (after stdin, stdout, stderr).
const (
	firstExtraFD = 3
	LifelineFD   = firstExtraFD     // lifeline pipe, read end
	ReportFD     = firstExtraFD + 1 // report pipe, write end
	OwnerExitFD  = firstExtraFD + 2 // the owner's exit word (Linux), when passed
)

// Lifeline messages, launcher to shim, one line each.
const (
	// StartMessage releases the start barrier: the launcher has recorded
	// the shim, so the shim may start the backend.
	StartMessage = "start"
	// OwnerMessage, followed by " <pid> <start marker>", is the line a new
	// launcher writes when it takes the backend over (update handoff in
	// adopt mode). From then on the shim watches the new owner: its exit
	// notification, and no longer getppid(), since the shim's parent is the
	// old launcher, which is about to exit.
	OwnerMessage = "owner"
	// StopMessage asks the shim to tear the backend's tree down now, as
	// SIGTERM to the shim does.
	StopMessage = "stop"
)

// EnvGrace is the time between SIGTERM and SIGKILL, for every command of
// this app that takes --grace: the default of the shim's --grace (for a
// shim run by hand: the launcher always passes it), and of run's and reap's.
// It is ours, not Hermes'.
const EnvGrace = "HERMES_DESKTOP_GRACE"

// ShimOptions are the shim's flags.
type ShimOptions struct {
	// Lifeline is the fd (Unix) or handle value (Windows) of the
	// lifeline's read end, as ShimPipes.ShimLifeline gives it; -1 means
	// none.
	Lifeline int
	// Report is the fd (Unix) or handle value (Windows) on which the shim
	// writes the backend's identity as one JSON line, as
	// ShimPipes.ShimReport gives it; -1 means none.
	Report int
	// OwnerExit is the fd of the launcher's exit word (Linux; see
	// exitword_linux.go), an earlier notice of its death than the
	// lifeline's EOF; 0 means none (the zero value: fds 0-2 are never it).
	OwnerExit int
	// Parent names the launcher. PID 0 means getppid(), which the parser
	// fills in; Start "" means unknown; Nonce "" means a random one.
	Parent Parent
	// Grace is the time between SIGTERM and SIGKILL at teardown.
	Grace time.Duration
	// Cgroup is the name (one path element) of the cgroup v2 to create
	// under the shim's own cgroup once the start barrier is released, and
	// to start the backend in; "" means none (the process group and the
	// tree walk alone hold the tree).
	Cgroup string
	// Argv is the backend's command line.
	Argv []string
}

// ShimCommand is the full command line that runs the backend o.Argv behind
// the shim: self (this app's executable), Subcommand, then o.Args().
func ShimCommand(self string, o ShimOptions) []string {
	return append([]string{self, Subcommand}, o.Args()...)
}

// Args is o as the shim's arguments after Subcommand, ending with "--" and
// the backend's argv. It is the inverse of the shim's parser: parsing Args()
// yields o again, for any o with a known parent PID and Grace >= 0. Values
// are joined with "=", so none is ever read as a flag or as the "--" that
// ends the flags (ParseShape splits a shim's command line at that "--").
func (o ShimOptions) Args() []string {
	args := []string{
		flagArg(FlagLifeline, strconv.Itoa(o.Lifeline)),
		flagArg(FlagReport, strconv.Itoa(o.Report)),
	}
	if o.OwnerExit > 0 {
		args = append(args, flagArg(FlagOwnerExit, strconv.Itoa(o.OwnerExit)))
	}
	if o.Parent.PID != 0 {
		args = append(args, flagArg(FlagParentPID, strconv.Itoa(o.Parent.PID)))
	}
	if o.Parent.Start != "" {
		args = append(args, flagArg(FlagParentMarker, o.Parent.Start))
	}
	if o.Parent.Nonce != "" {
		args = append(args, flagArg(FlagNonce, o.Parent.Nonce))
	}
	// Always given, so the shim's EnvGrace default never applies.
	args = append(args, flagArg(FlagGrace, o.Grace.String()))
	if o.Cgroup != "" {
		args = append(args, flagArg(FlagCgroup, o.Cgroup))
	}
	args = append(args, argsEnd)
	return append(args, o.Argv...)
}

func flagArg(name, value string) string { return "--" + name + "=" + value }

// ShimPipes are the launcher's two pipes to one shim: the launcher's ends,
// and the shim's ends made ready for the one child that inherits them.
type ShimPipes struct {
	// Lifeline is the launcher's end of the lifeline (its write end) and
	// Report its end of the report (its read end). No child inherits
	// either: close-on-exec on Unix, not inheritable on Windows.
	Lifeline, Report *os.File
	// ShimLifeline and ShimReport are the numbers the shim knows its ends
	// by, for ShimOptions.Lifeline and .Report: LifelineFD and ReportFD on
	// Unix, the handle values on Windows.
	ShimLifeline, ShimReport int
	// ShimOwnerExit is the number the shim knows this process's exit word
	// by, for ShimOptions.OwnerExit: OwnerExitFD, or 0 where there is none
	// (not Linux, or it could not be made; the lifeline still holds).
	ShimOwnerExit int
	// ownerExit is this process's exit word, shared by every shim it
	// starts: never closed here.
	ownerExit *os.File
	// shimEnds are the lifeline's read end and the report's write end,
	// until CloseShimEnds.
	shimEnds [2]*os.File
}

// NewShimPipes makes the two pipes. Close the shim's ends once the shim is
// started (CloseShimEnds), and the launcher's when done with them.
func NewShimPipes() (*ShimPipes, error) {
	lifeR, lifeW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("watchdog: lifeline pipe: %w", err)
	}
	repR, repW, err := os.Pipe()
	if err != nil {
		lifeR.Close()
		lifeW.Close()
		return nil, fmt.Errorf("watchdog: report pipe: %w", err)
	}
	p := &ShimPipes{Lifeline: lifeW, Report: repR, shimEnds: [2]*os.File{lifeR, repW}}
	if f, err := ownerExitWord(); err == nil {
		p.ownerExit, p.ShimOwnerExit = f, OwnerExitFD
	}
	if err := p.prepare(); err != nil {
		p.CloseShimEnds()
		p.Lifeline.Close()
		p.Report.Close()
		return nil, err
	}
	return p, nil
}

// prepare keeps the launcher's ends from every child and makes the shim's
// inheritable, learning the numbers the shim will know them by.
func (p *ShimPipes) prepare() error {
	if err := keepFromChildren(p.Lifeline); err != nil {
		return fmt.Errorf("watchdog: lifeline pipe: %w", err)
	}
	if err := keepFromChildren(p.Report); err != nil {
		return fmt.Errorf("watchdog: report pipe: %w", err)
	}
	var err error
	if p.ShimLifeline, err = shimEnd(p.shimEnds[0], LifelineFD); err != nil {
		return fmt.Errorf("watchdog: lifeline pipe: %w", err)
	}
	if p.ShimReport, err = shimEnd(p.shimEnds[1], ReportFD); err != nil {
		return fmt.Errorf("watchdog: report pipe: %w", err)
	}
	return nil
}

// Attach makes cmd's child, and no other process, inherit the shim's ends
// under the numbers ShimLifeline and ShimReport. It keeps what cmd already
// asks for (SysProcAttr's creation flags, say); on Unix it refuses a cmd
// that has extra files of its own, which would move the fds.
func (p *ShimPipes) Attach(cmd *exec.Cmd) error {
	if p.shimEnds[0] == nil {
		return errors.New("watchdog: attach shim pipes: the shim's ends are closed")
	}
	return attachShimEnds(cmd, p.shimEnds[0], p.shimEnds[1], p.ownerExit)
}

// CloseShimEnds closes our copies of the shim's ends, after the shim has
// started (or failed to): as long as we hold the report's write end, the
// report would never see EOF. It is safe to call more than once.
func (p *ShimPipes) CloseShimEnds() {
	for k, f := range p.shimEnds {
		if f != nil {
			f.Close()
			p.shimEnds[k] = nil
		}
	}
}

// parseShimFlags is the shim's side of Args.
func parseShimFlags(args []string, stderr io.Writer) (ShimOptions, error) {
	o := ShimOptions{Lifeline: -1, Report: -1}
	fs := flag.NewFlagSet(Subcommand, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, `usage: hermes-desktop watchdog [flags] -- CMD ARGS...

Runs CMD as a child in this process's group and tears CMD's whole tree down
(SIGTERM, grace period, SIGKILL; descendants that called setsid included)
when the parent dies, when this shim gets SIGTERM/SIGINT/SIGHUP, or when CMD
exits. Parent death is seen through EOF on the lifeline fd, the OS exit
notification (pidfd / kqueue / process handle), or getppid() changing.
CMD gets %s, %s and %s
naming this shim. Exits with CMD's status (128+N if killed by signal N).

`, hermes.EnvParentPID, hermes.EnvParentMarker, hermes.EnvParentNonce)
		fs.PrintDefaults()
	}
	fs.IntVar(&o.Lifeline, FlagLifeline, -1, "fd of the lifeline pipe's read end; EOF means the parent is gone (-1: none)")
	fs.IntVar(&o.Report, FlagReport, -1, "fd to write the backend's pid and start marker to, as one JSON line (-1: none)")
	fs.IntVar(&o.OwnerExit, FlagOwnerExit, 0, "Linux: fd of the parent's exit word, marked as soon as its exit begins (0: none)")
	fs.IntVar(&o.Parent.PID, FlagParentPID, 0, "PID of the parent to watch (default: the actual parent)")
	fs.StringVar(&o.Parent.Start, FlagParentMarker, "", "start marker of the parent, so a reused PID is not mistaken for it")
	fs.StringVar(&o.Parent.Nonce, FlagNonce, "", "nonce passed to the backend as "+hermes.EnvParentNonce+" (default: random)")
	fs.DurationVar(&o.Grace, FlagGrace, envflag.Duration(EnvGrace, 5*time.Second), "time between SIGTERM and SIGKILL (env "+EnvGrace+")")
	fs.StringVar(&o.Cgroup, FlagCgroup, "", "Linux: create this cgroup v2 under the shim's own and start CMD inside it (default: none)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if o.Cgroup != "" && !validCgroupName(o.Cgroup) {
		return o, fmt.Errorf("watchdog: --%s=%q is not one path element", FlagCgroup, o.Cgroup)
	}
	o.Argv = fs.Args()
	if len(o.Argv) == 0 {
		fs.Usage()
		return o, errors.New("watchdog: no command given after --")
	}
	if o.Parent.PID == 0 {
		o.Parent.PID = os.Getppid()
	}
	if o.Parent.Start != "" {
		if _, _, err := proc.ParseMarker(o.Parent.Start); err != nil {
			return o, fmt.Errorf("watchdog: --%s: %w", FlagParentMarker, err)
		}
	}
	if o.Grace < 0 {
		return o, fmt.Errorf("watchdog: --%s must not be negative", FlagGrace)
	}
	if o.OwnerExit < 0 || (o.OwnerExit > 0 && o.OwnerExit < firstExtraFD) {
		return o, fmt.Errorf("watchdog: --%s=%d is not an fd past stderr", FlagOwnerExit, o.OwnerExit)
	}
	return o, nil
}

// validCgroupName accepts one path element: the shim only ever creates a
// child of its own cgroup.
func validCgroupName(s string) bool {
	return s != "." && s != ".." && !strings.ContainsAny(s, "/\x00\n") && len(s) <= 255
}

// Report is what the shim tells the launcher about the backend it started:
// its PID and start marker and the cgroup it was started in, or why it
// could not be started.
type Report struct {
	PID   int    `json:"pid,omitempty"`
	Start string `json:"start,omitempty"`
	// Cgroup is the cgroup v2 path (in the hierarchy) the backend was
	// started in, when --cgroup asked for one and it could be made.
	Cgroup string `json:"cgroup,omitempty"`
	// CgroupError says why --cgroup could not be honoured; the backend
	// then runs without a cgroup of its own.
	CgroupError string `json:"cgroup_error,omitempty"`
	Error       string `json:"error,omitempty"`
}

// maxReportLine bounds the report, newline included.
const maxReportLine = 4096

// ErrBadReport is returned by ReadReport for a line that is not a Report.
var ErrBadReport = errors.New("watchdog: unreadable report")

// writeReport writes r as the one report line.
func writeReport(w io.Writer, r Report) error {
	data, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("watchdog: encode report: %w", err)
	}
	if _, err := w.Write(append(data, '\n')); err != nil {
		return fmt.Errorf("watchdog: write report: %w", err)
	}
	return nil
}

// ReadReport reads the shim's report line. When there is no line it returns
// the read error, wrapped (io.EOF: the shim closed the pipe without
// reporting); when the line does not decode, an error wrapping ErrBadReport.
func ReadReport(r io.Reader) (Report, error) {
	line, err := bufio.NewReaderSize(io.LimitReader(r, maxReportLine), maxReportLine).ReadBytes('\n')
	if err != nil && len(line) == 0 {
		return Report{}, fmt.Errorf("watchdog: read report: %w", err)
	}
	var rep Report
	if err := json.Unmarshal(line, &rep); err != nil {
		return Report{}, fmt.Errorf("%w: %q: %w", ErrBadReport, line, err)
	}
	return rep, nil
}

// FormatStart is the start message as written on the lifeline.
func FormatStart() string { return StartMessage + "\n" }

// FormatStop is the stop message as written on the lifeline.
func FormatStop() string { return StopMessage + "\n" }

// FormatOwner is the owner message for id as written on the lifeline.
func FormatOwner(id proc.Identity) string {
	return fmt.Sprintf("%s %d %s\n", OwnerMessage, id.PID, id.Start)
}

// parseOwner reads an owner message (without its newline); ok is false for
// anything else.
func parseOwner(line string) (Parent, bool) {
	rest, ok := strings.CutPrefix(line, OwnerMessage+" ")
	if !ok {
		return Parent{}, false
	}
	pidStr, marker, ok := strings.Cut(rest, " ")
	pid, err := strconv.Atoi(pidStr)
	if !ok || err != nil || pid <= 1 {
		return Parent{}, false
	}
	if _, _, err := proc.ParseMarker(marker); err != nil {
		return Parent{}, false
	}
	return Parent{PID: pid, Start: marker}, true
}
