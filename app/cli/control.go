package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"hermes-desktop/backend/control"
	"hermes-desktop/backend/control/protocol"
	"hermes-desktop/contract/errkind"
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

// reply is the answer callInstance got.
type reply[Res any] struct {
	res   Res
	raw   json.RawMessage // as the instance wrote it, for --json
	flags controlFlags
}

// callInstance sends op with its arguments and maps the outcome to an exit
// code (-1: the call succeeded, go on with its reply).
func callInstance[Req, Res any](name string, args []string, op protocol.Op[Req, Res], opArgs Req, stderr io.Writer, withBackend, withJSON bool) (reply[Res], int) {
	var r reply[Res]
	f, err := parseControlFlags(name, args, stderr, withBackend, withJSON)
	r.flags = f
	if errors.Is(err, flag.ErrHelp) {
		return r, ExitOK
	}
	if err != nil {
		fmt.Fprintln(stderr, "hermes-desktop:", err)
		return r, ExitUsage
	}
	stateDir, err := resolveStateDir(f.stateDir)
	if err != nil {
		fmt.Fprintln(stderr, "hermes-desktop:", err)
		return r, ExitError
	}
	ctx, cancel := context.WithTimeout(context.Background(), f.timeout)
	defer cancel()
	r.res, r.raw, err = op.CallRaw(ctx, stateDir, f.backend, opArgs)
	if errors.Is(err, control.ErrNotRunning) {
		fmt.Fprintf(stderr, "hermes-desktop is not running (no instance on state dir %s)\n", stateDir)
		return r, ExitNotRunning
	}
	if err != nil {
		fmt.Fprintf(stderr, "hermes-desktop: %s: %v\n", name, err)
		if errors.Is(err, errkind.ErrNoSuchBackend) || errors.Is(err, errkind.ErrBadRequest) {
			return r, ExitUsage // the caller's words were wrong, not the instance
		}
		if errors.Is(err, errkind.ErrNotReady) {
			return r, ExitNotRunning // nothing runs that could do it
		}
		return r, ExitError
	}
	return r, -1
}

func cmdStatus(args []string, stdout, stderr io.Writer) int {
	r, code := callInstance("status", args, protocol.OpStatus, protocol.None{}, stderr, false, true)
	if code >= 0 {
		return code
	}
	if r.flags.json {
		fmt.Fprintln(stdout, string(r.raw))
		return ExitOK
	}
	printStatus(stdout, r.res, time.Now())
	return ExitOK
}

func cmdRestart(args []string, stdout, stderr io.Writer) int {
	return backendVerb("restart", "restarted", "all backends", protocol.OpRestart, args, stdout, stderr)
}

// backendVerb runs a verb on one backend (--backend NAME) or on all, and
// says what it did.
func backendVerb(name, done, all string, op protocol.Op[protocol.None, protocol.None], args []string, stdout, stderr io.Writer) int {
	r, code := callInstance(name, args, op, protocol.None{}, stderr, true, false)
	if code >= 0 {
		return code
	}
	what := all
	if r.flags.backend != "" {
		what = "backend " + r.flags.backend
	}
	fmt.Fprintf(stdout, "%s %s\n", done, what)
	return ExitOK
}

// cmdStop stops one backend (--backend NAME) and leaves the instance
// running, or stops the whole instance.
func cmdStop(args []string, stdout, stderr io.Writer) int {
	if hasBackendFlag(args) {
		r, code := callInstance("stop", args, protocol.OpStopBackend, protocol.None{}, stderr, true, false)
		if code >= 0 {
			return code
		}
		fmt.Fprintf(stdout, "stopped backend %s\n", r.flags.backend)
		return ExitOK
	}
	_, code := callInstance("stop", args, protocol.OpStop, protocol.None{}, stderr, true, false)
	if code >= 0 {
		return code
	}
	fmt.Fprintln(stdout, "stopped: every backend is torn down")
	return ExitOK
}

// cmdStart starts a stopped or failed backend, or every one.
func cmdStart(args []string, stdout, stderr io.Writer) int {
	return backendVerb("start", "started", "every backend", protocol.OpStartBackend, args, stdout, stderr)
}

// hasBackendFlag reports whether args name a backend (any flag form).
func hasBackendFlag(args []string) bool {
	for _, a := range args {
		if name, ok := flagName(a); ok && name == "backend" {
			return true
		}
	}
	return false
}

// flagName is the name of a flag argument in any of the forms the flag
// package takes (-name, --name, -name=value, --name=value); ok is false
// for an argument that is no flag.
func flagName(arg string) (name string, ok bool) {
	if !strings.HasPrefix(arg, "-") {
		return "", false
	}
	name, _, _ = strings.Cut(strings.TrimLeft(arg, "-"), "=")
	return name, true
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
	op := protocol.OpOpen
	if printOnly {
		op = protocol.OpPage
	}
	r, code := callInstance("open", rest, op, protocol.None{}, stderr, true, false)
	if code >= 0 {
		return code
	}
	page := r.res
	if page.URL == "" {
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
