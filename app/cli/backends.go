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

	"hermes-desktop/backend"
	"hermes-desktop/backend/control"
	"hermes-desktop/backend/control/protocol"
	"hermes-desktop/backend/settings"
	"hermes-desktop/contract/errkind"
	"hermes-desktop/lockfile"
	"hermes-desktop/platform/cmdline"
)

// cmdBackends is `backends list|add|remove`: through the running app (the
// window's Add and Remove, the same validation and words), or on
// config.json when no app runs.
func cmdBackends(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		backendsUsage(stdout)
		return ExitOK
	}
	switch args[0] {
	case "list":
		return backendsList(args[1:], stdout, stderr)
	case "add":
		return backendsAdd(args[1:], stdout, stderr)
	case "remove":
		return backendsRemove(args[1:], stdout, stderr)
	}
	fmt.Fprintf(stderr, "hermes-desktop: backends: unknown subcommand %q (list, add or remove)\n", args[0])
	return ExitUsage
}

func backendsUsage(w io.Writer) {
	fmt.Fprint(w, `usage: hermes-desktop backends list [--json]
       hermes-desktop backends add NAME [--kind dashboard|serve|custom] [--profile P]
                                        [--command CMD] [--host HOST]
                                        [--ready-regex RE] [--health-path PATH] [--grace D]
       hermes-desktop backends remove NAME

With the app running, add starts the backend at once and remove stops its
whole tree, both saved for the next start (as the window's Add and Remove);
with no app running, they edit the saved list (config.json in the state dir).
Every subcommand takes --state-dir DIR (env HERMES_DESKTOP_STATE_DIR).
`)
}

// nameFirst takes a leading NAME off args, so that it may come before
// the flags (flag stops at the first argument that is not one).
func nameFirst(args []string) (string, []string) {
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		return args[0], args[1:]
	}
	return "", args
}

// addFlags are `backends add`'s flags: the window's Add form's fields.
func addFlags(args []string, stderr io.Writer) (settings.Backend, string, error) {
	name, rest := nameFirst(args)
	fs := flag.NewFlagSet("backends add", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var stateDir, kind, profile string
	b := settings.Backend{Name: name}
	fs.StringVar(&stateDir, "state-dir", "", "state directory (env HERMES_DESKTOP_STATE_DIR)")
	fs.StringVar(&kind, "kind", string(settings.KindDashboard), "dashboard, serve or custom")
	fs.StringVar(&profile, "profile", "", "Hermes profile (dashboard and serve: --profile P)")
	fs.StringVar(&b.Command, "command", "", "the command line of a custom backend")
	fs.StringVar(&b.Host, "host", "", "run it on another machine over ssh ([user@]host, an ssh config alias)")
	fs.StringVar(&b.ReadyRegex, "ready-regex", "", "a custom backend's ready pattern, with a group for the port")
	fs.StringVar(&b.HealthPath, "health-path", "", "a custom backend's health path")
	fs.StringVar(&b.Grace, "grace", "", "a custom backend's stop grace period, like 5s")
	if err := fs.Parse(rest); err != nil {
		return b, "", err
	}
	if fs.NArg() > 0 {
		return b, "", fmt.Errorf("backends add: unexpected argument %q", fs.Arg(0))
	}
	if b.Name == "" {
		return b, "", errors.New("backends add: name the backend: backends add NAME [flags]")
	}
	b.Kind = settings.Kind(kind)
	if profile != "" {
		b.Args = []string{"--profile", profile}
	}
	return b, stateDir, nil
}

func backendsAdd(args []string, stdout, stderr io.Writer) int {
	b, stateDir, err := addFlags(args, stderr)
	if code, done := usageError(err, stderr); done {
		return code
	}
	offline := func(store *settings.Store) error { return backend.AddToSaved(store, b) }
	code, running := onApp(stateDir, stderr, "backends add",
		func(ctx context.Context, dir string) error {
			_, err := protocol.OpAddBackend.Call(ctx, dir, "", b)
			return err
		}, offline)
	if code != ExitOK {
		return code
	}
	if running {
		fmt.Fprintf(stdout, "added backend %s: starting now, and saved for the next start\n", b.Name)
	} else {
		fmt.Fprintf(stdout, "added backend %s to the saved list: it starts with Hermes Desktop\n", b.Name)
	}
	return ExitOK
}

func backendsRemove(args []string, stdout, stderr io.Writer) int {
	name, rest := nameFirst(args)
	fs := flag.NewFlagSet("backends remove", flag.ContinueOnError)
	fs.SetOutput(stderr)
	stateDir := fs.String("state-dir", "", "state directory (env HERMES_DESKTOP_STATE_DIR)")
	err := fs.Parse(rest)
	if err == nil && fs.NArg() > 0 {
		err = fmt.Errorf("backends remove: unexpected argument %q", fs.Arg(0))
	}
	if err == nil && name == "" {
		err = errors.New("backends remove: name the backend: backends remove NAME")
	}
	if code, done := usageError(err, stderr); done {
		return code
	}
	var left int
	offline := func(store *settings.Store) error {
		if err := backend.RemoveFromSaved(store, name); err != nil {
			return err
		}
		s, _ := store.Load()
		left = len(s.Backends)
		return nil
	}
	code, running := onApp(*stateDir, stderr, "backends remove",
		func(ctx context.Context, dir string) error {
			_, err := protocol.OpRemoveBackend.Call(ctx, dir, name, protocol.None{})
			return err
		}, offline)
	if code != ExitOK {
		return code
	}
	switch {
	case running:
		fmt.Fprintf(stdout, "removed backend %s: its whole tree is stopped, and the saved list no longer has it\n", name)
	case left == 0:
		fmt.Fprintf(stdout, "removed backend %s from the saved list; it is empty now, so the next start runs the default backend\n", name)
	default:
		fmt.Fprintf(stdout, "removed backend %s from the saved list\n", name)
	}
	return ExitOK
}

func backendsList(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("backends list", flag.ContinueOnError)
	fs.SetOutput(stderr)
	stateDir := fs.String("state-dir", "", "state directory (env HERMES_DESKTOP_STATE_DIR)")
	asJSON := fs.Bool("json", false, "print JSON: the running app's backends with their state, else the saved list")
	err := fs.Parse(args)
	if err == nil && fs.NArg() > 0 {
		err = fmt.Errorf("backends list: unexpected argument %q", fs.Arg(0))
	}
	if code, done := usageError(err, stderr); done {
		return code
	}
	rows, running, err := listBackends(*stateDir)
	if err != nil {
		fmt.Fprintln(stderr, "hermes-desktop: backends list:", err)
		return ExitError
	}
	if *asJSON {
		data, _ := json.MarshalIndent(rows, "", "  ")
		fmt.Fprintln(stdout, string(data))
		return ExitOK
	}
	if !running {
		fmt.Fprintln(stdout, "hermes-desktop is not running: the saved list, which the next start runs")
	}
	tw := tabwriter.NewWriter(stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tKIND\tHOST\tSTATE\tRUNS")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Name, r.Kind, dash(r.Host), dash(r.State), r.Runs)
	}
	tw.Flush()
	return ExitOK
}

// listedBackend is one row of `backends list`.
type listedBackend struct {
	settings.Backend
	// State is the running app's word for it; "" with no app running.
	State string `json:"state,omitempty"`
	// Runs says what it runs, for a person.
	Runs string `json:"runs"`
}

// listBackends is the list the running app runs (its status), else the
// saved one.
func listBackends(stateDir string) ([]listedBackend, bool, error) {
	dir, err := resolveStateDir(stateDir)
	if err != nil {
		return nil, false, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st, err := protocol.OpStatus.Call(ctx, dir, "", protocol.None{})
	if err != nil && !errors.Is(err, control.ErrNotRunning) {
		return nil, false, err
	}
	running := err == nil
	var list []settings.Backend
	if running { // what runs now: a backend made from flags is not saved
		for _, b := range st.Backends {
			list = append(list, settings.Backend{Name: b.Name, Kind: b.Kind, Host: b.Host})
		}
	} else {
		saved, notice := settings.Load(dir)
		if notice != "" {
			return nil, false, errors.New(notice)
		}
		if list, err = backend.SavedBackends(saved); err != nil {
			return nil, false, err
		}
	}
	var rows []listedBackend
	for i, b := range list {
		row := listedBackend{Backend: b, Runs: describeSetting(b)}
		if running {
			row.State = string(st.Backends[i].State)
			row.Runs = cmdline.Join(st.Backends[i].Command)
		}
		rows = append(rows, row)
	}
	return rows, running, nil
}

// describeSetting says what a saved backend runs.
func describeSetting(b settings.Backend) string {
	if b.Kind == settings.KindCustom {
		return b.Command
	}
	return strings.TrimSpace("hermes " + string(b.Kind) + " " + strings.Join(b.Args, " "))
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// onApp does a change through the running app, or, with none running, on
// the saved settings (under the single-instance lock, so that an app
// starting meanwhile reads the list before or after, never half of it).
// It says what went wrong and returns the exit code, and whether the app
// did it.
func onApp(stateDir string, stderr io.Writer, verb string, viaApp func(ctx context.Context, dir string) error, offline func(*settings.Store) error) (int, bool) {
	dir, err := resolveStateDir(stateDir)
	if err != nil {
		fmt.Fprintln(stderr, "hermes-desktop:", err)
		return ExitError, false
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err = viaApp(ctx, dir)
	running := !errors.Is(err, control.ErrNotRunning)
	if !running {
		err = withoutApp(dir, offline)
	}
	if err == nil {
		return ExitOK, running
	}
	fmt.Fprintf(stderr, "hermes-desktop: %s: %v\n", verb, err)
	if errors.Is(err, errkind.ErrBadRequest) || errors.Is(err, errkind.ErrNoSuchBackend) {
		return ExitUsage, running
	}
	return ExitError, running
}

// withoutApp runs edit on the state dir's settings while holding the
// single-instance lock: no app starts reading them halfway.
func withoutApp(dir string, edit func(*settings.Store) error) error {
	if err := lockfile.EnsureDir(dir); err != nil {
		return err
	}
	lock, err := lockfile.AcquireInstance(dir)
	if errors.Is(err, lockfile.ErrHeld) {
		return errors.New("hermes-desktop is starting or stopping on this state dir: try again in a moment")
	}
	if err != nil {
		return err
	}
	defer lock.Release()
	return edit(settings.NewStore(dir))
}

func usageError(err error, stderr io.Writer) (int, bool) {
	switch {
	case err == nil:
		return 0, false
	case errors.Is(err, flag.ErrHelp):
		return ExitOK, true
	}
	fmt.Fprintln(stderr, "hermes-desktop:", err)
	return ExitUsage, true
}
