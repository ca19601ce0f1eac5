package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"hermes-desktop/backend"
	"hermes-desktop/backend/control"
	"hermes-desktop/backend/control/protocol"
	"hermes-desktop/backend/reap"
	"hermes-desktop/backend/reapreport"
	"hermes-desktop/lockfile"
	"hermes-desktop/platform/envflag"
	"hermes-desktop/watchdog"
)

type reapFlags struct {
	stateDir string
	dryRun   bool
	json     bool
	minAge   time.Duration
	grace    time.Duration
	only     []int // nil: every process
}

func parseReapFlags(args []string, stderr io.Writer) (reapFlags, error) {
	var f reapFlags
	fs := flag.NewFlagSet("reap", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, `usage: hermes-desktop reap [--dry-run] [--json] [--min-age D] [--only PIDS] [--state-dir DIR]

Finds backends that earlier crashes left behind (loopback, ephemeral-port
serve commands and this app's watchdog shims) and removes those with positive
evidence of abandonment: a record whose launcher is dead, or no record and
orphaned for longer than --min-age. Says why for every process it looked at.
A running instance does the reap itself; otherwise this command does, holding
the single-instance lock.`)
		fs.PrintDefaults()
	}
	fs.StringVar(&f.stateDir, "state-dir", "", "state directory (env HERMES_DESKTOP_STATE_DIR)")
	fs.BoolVar(&f.dryRun, "dry-run", false, "decide and report, signal nothing, change nothing")
	fs.BoolVar(&f.json, "json", false, "print the report as JSON")
	fs.DurationVar(&f.minAge, "min-age", envflag.Duration("HERMES_DESKTOP_MIN_ORPHAN_AGE", reap.DefaultMinOrphanAge), "minimum age of an unrecorded orphan; 0s: no minimum (env HERMES_DESKTOP_MIN_ORPHAN_AGE)")
	fs.Func("only", "look only at these PIDs (comma-separated), as after a dry run the user confirmed; each is reaped only if it still qualifies", func(v string) error {
		for _, field := range strings.Split(v, ",") {
			pid, err := strconv.Atoi(strings.TrimSpace(field))
			if err != nil || pid <= 0 {
				return fmt.Errorf("%q is not a PID", field)
			}
			f.only = append(f.only, pid)
		}
		return nil
	})
	fs.DurationVar(&f.grace, "grace", envflag.Duration(watchdog.EnvGrace, reap.DefaultGrace), "time a process has to exit once asked to stop before it is killed; on Windows, where nothing can ask it, it is killed at once (env "+watchdog.EnvGrace+")")
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	if fs.NArg() > 0 {
		return f, fmt.Errorf("reap: unexpected argument %q", fs.Arg(0))
	}
	return f, nil
}

func cmdReap(args []string, stdout, stderr io.Writer) int {
	f, err := parseReapFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return ExitOK
	}
	if err != nil {
		fmt.Fprintln(stderr, "hermes-desktop:", err)
		return ExitUsage
	}
	stateDir, err := resolveStateDir(f.stateDir)
	if err != nil {
		fmt.Fprintln(stderr, "hermes-desktop:", err)
		return ExitError
	}
	report, err := reapVia(stateDir, f)
	if err != nil {
		fmt.Fprintln(stderr, "hermes-desktop: reap:", err)
		return ExitError
	}
	if f.json {
		data, _ := json.Marshal(report)
		fmt.Fprintln(stdout, string(data))
	} else {
		printReap(stdout, report)
	}
	if report.Count(reapreport.ActionFailed) > 0 {
		return ExitError
	}
	return ExitOK
}

// reapVia asks the running instance to reap, or reaps here while holding the
// single-instance lock, so two reaps (or a reap and a spawn) never overlap.
func reapVia(stateDir string, f reapFlags) (*reapreport.Report, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute+2*f.grace)
	defer cancel()
	// --min-age always has a value (its default is 180 s, as for a reap
	// here), and 0s travels as 0: no minimum, not "the instance's own".
	report, err := protocol.OpReap.Call(ctx, stateDir, "", protocol.ReapArgs{DryRun: f.dryRun, MinAge: new(int64(f.minAge)), Only: f.only})
	if err == nil {
		if report == nil { // an answer of null: nothing was reaped
			report = &reapreport.Report{}
		}
		return report, nil
	}
	if !errors.Is(err, control.ErrNotRunning) {
		return nil, err
	}
	if err := lockfile.EnsureDir(stateDir); err != nil {
		return nil, err
	}
	lock, err := lockfile.AcquireInstance(stateDir)
	if err != nil {
		return nil, fmt.Errorf("an instance is starting on %s; try again in a moment (%w)", stateDir, err)
	}
	defer lock.Release()
	home, err := backend.HermesHome()
	if err != nil {
		return nil, err
	}
	return reap.Run(ctx, reap.Options{StateDir: stateDir, HermesHome: home, MinAge: new(f.minAge), Grace: f.grace, DryRun: f.dryRun, Only: f.only})
}

func printReap(w io.Writer, r *reapreport.Report) {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	for _, d := range r.Decisions {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\n", d.Action, d.PID, d.Reason, d.Detail, shorten(strings.Join(d.Cmdline, " "), 80))
	}
	tw.Flush()
	for _, c := range r.Cgroups { // the cgroup's verdict, then what it held
		fmt.Fprintf(w, "%s  cgroup %s  %s  %s\n", c.Action, c.Cgroup, c.Reason, c.Detail)
		for _, m := range c.Processes {
			fmt.Fprintf(w, "    %d  %s\n", m.PID, shorten(strings.Join(m.Cmdline, " "), 80))
		}
	}
	if len(r.Decisions) == 0 && len(r.Cgroups) == 0 {
		fmt.Fprintln(w, "no backend processes found")
	}
	for _, s := range r.SetAside {
		fmt.Fprintf(w, "record set aside: %s\n", s)
	}
	prefix := ""
	if r.DryRun {
		prefix = "dry run: "
	}
	fmt.Fprintln(w, prefix+r.Summary())
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}
