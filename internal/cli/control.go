package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"hermes-desktop/backend/control"
	"hermes-desktop/backend/model"
)

// controlFlags are the flags every control-socket command shares.
type controlFlags struct {
	stateDir string
	backend  string
	json     bool
	timeout  time.Duration
}

func parseControlFlags(name string, args []string, stderr io.Writer, withBackend, withJSON bool) (controlFlags, error) {
	var f controlFlags
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.stateDir, "state-dir", "", "state directory of the instance (env HERMES_DESKTOP_STATE_DIR)")
	fs.DurationVar(&f.timeout, "timeout", time.Minute, "how long to wait for the instance's answer")
	if withBackend {
		fs.StringVar(&f.backend, "backend", "", "backend name (default: all for restart)")
	}
	if withJSON {
		fs.BoolVar(&f.json, "json", false, "print JSON")
	}
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	if fs.NArg() > 0 {
		return f, fmt.Errorf("%s: unexpected argument %q", name, fs.Arg(0))
	}
	return f, nil
}

// callInstance sends one request and maps the outcome to an exit code.
func callInstance(name string, args []string, req control.Request, stderr io.Writer, withBackend, withJSON bool) (json.RawMessage, controlFlags, int) {
	f, err := parseControlFlags(name, args, stderr, withBackend, withJSON)
	if errors.Is(err, flag.ErrHelp) {
		return nil, f, ExitOK
	}
	if err != nil {
		fmt.Fprintln(stderr, "hermes-desktop:", err)
		return nil, f, ExitUsage
	}
	stateDir, err := resolveStateDir(f.stateDir)
	if err != nil {
		fmt.Fprintln(stderr, "hermes-desktop:", err)
		return nil, f, ExitError
	}
	req.Backend = f.backend
	ctx, cancel := context.WithTimeout(context.Background(), f.timeout)
	defer cancel()
	res, err := control.Call(ctx, stateDir, req)
	if errors.Is(err, control.ErrNotRunning) {
		fmt.Fprintf(stderr, "hermes-desktop is not running (no instance on state dir %s)\n", stateDir)
		return nil, f, ExitNotRunning
	}
	if err != nil {
		fmt.Fprintf(stderr, "hermes-desktop: %s: %v\n", name, err)
		if errors.Is(err, control.ErrNoSuchBackend) || errors.Is(err, control.ErrBadRequest) {
			return nil, f, ExitUsage // the caller's words were wrong, not the instance
		}
		if errors.Is(err, control.ErrNotReady) {
			return nil, f, ExitNotRunning // nothing runs that could do it
		}
		return nil, f, ExitError
	}
	return res, f, -1
}

func cmdStatus(args []string, stdout, stderr io.Writer) int {
	res, f, code := callInstance("status", args, control.Request{Op: control.OpStatus}, stderr, false, true)
	if code >= 0 {
		return code
	}
	if f.json {
		fmt.Fprintln(stdout, string(res))
		return ExitOK
	}
	var st model.Status
	if err := json.Unmarshal(res, &st); err != nil {
		fmt.Fprintln(stderr, "hermes-desktop: status: unreadable answer:", err)
		return ExitError
	}
	printStatus(stdout, st)
	return ExitOK
}

func printStatus(w io.Writer, st model.Status) {
	fmt.Fprintf(w, "hermes-desktop %s: pid %d (%s), state dir %s\n", st.Instance.Version, st.Instance.PID, st.Instance.Mode, st.Instance.StateDir)
	if st.Instance.RestartToApply {
		fmt.Fprintln(w, "updated on disk: 'hermes-desktop handoff' applies it (the backends keep running)")
	}
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "BACKEND\tKIND\tSTATE\tPID\tPORT\tPAGE\tRESTARTS")
	for _, b := range st.Backends {
		url := b.PageURL
		switch {
		case url == "" && b.URL != "":
			url = "API only: " + b.URL
		case url == "":
			url = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%s\t%d\n", b.Name, b.Kind, b.State, b.PID, b.Port, url, b.Restarts)
	}
	tw.Flush()
	for _, b := range st.Backends {
		if b.LastError != "" {
			fmt.Fprintf(w, "%s: %s\n", b.Name, b.LastError)
		}
	}
}

func cmdRestart(args []string, stdout, stderr io.Writer) int {
	return backendVerb("restart", "restarted", "all backends", control.OpRestart, args, stdout, stderr)
}

// backendVerb runs a verb on one backend (--backend NAME) or on all, and
// says what it did.
func backendVerb(name, done, all, op string, args []string, stdout, stderr io.Writer) int {
	_, f, code := callInstance(name, args, control.Request{Op: op}, stderr, true, false)
	if code >= 0 {
		return code
	}
	what := all
	if f.backend != "" {
		what = "backend " + f.backend
	}
	fmt.Fprintf(stdout, "%s %s\n", done, what)
	return ExitOK
}

// cmdStop stops one backend (--backend NAME) and leaves the instance
// running, or stops the whole instance.
func cmdStop(args []string, stdout, stderr io.Writer) int {
	if hasBackendFlag(args) {
		_, f, code := callInstance("stop", args, control.Request{Op: control.OpStopBackend}, stderr, true, false)
		if code >= 0 {
			return code
		}
		fmt.Fprintf(stdout, "stopped backend %s\n", f.backend)
		return ExitOK
	}
	_, _, code := callInstance("stop", args, control.Request{Op: control.OpStop}, stderr, true, false)
	if code >= 0 {
		return code
	}
	fmt.Fprintln(stdout, "stopped: every backend is torn down")
	return ExitOK
}

// cmdStart starts a stopped or failed backend, or every one.
func cmdStart(args []string, stdout, stderr io.Writer) int {
	return backendVerb("start", "started", "every backend", control.OpStartBackend, args, stdout, stderr)
}

// hasBackendFlag reports whether args name a backend (any flag form).
func hasBackendFlag(args []string) bool {
	for _, a := range args {
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && name == "backend" {
			return true
		}
	}
	return false
}

// cmdOpen opens Hermes' page in the default browser (the instance opens
// it), or prints its URL with --print. Exit 3 when nothing runs that has a
// page.
func cmdOpen(args []string, stdout, stderr io.Writer) int {
	printOnly := false
	var rest []string
	for _, a := range args {
		if a == "--print" || a == "-print" {
			printOnly = true
			continue
		}
		rest = append(rest, a)
	}
	op := control.OpOpen
	if printOnly {
		op = control.OpPage
	}
	res, _, code := callInstance("open", rest, control.Request{Op: op}, stderr, true, false)
	if code >= 0 {
		return code
	}
	var page struct {
		URL string `json:"url"`
	}
	if err := json.Unmarshal(res, &page); err != nil || page.URL == "" {
		fmt.Fprintln(stderr, "hermes-desktop: open: unreadable answer")
		return ExitError
	}
	if printOnly {
		fmt.Fprintln(stdout, page.URL)
	} else {
		fmt.Fprintf(stdout, "opened %s\n", page.URL)
	}
	return ExitOK
}
