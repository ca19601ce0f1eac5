package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"hermes-desktop/backend/control"
	"hermes-desktop/backend/control/protocol"
	"hermes-desktop/backend/update"
	"hermes-desktop/contract/errkind"
)

// cmdUpdate runs `update check|apply|skip`: the self-update, done by the
// running instance.
func cmdUpdate(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: hermes-desktop update check|apply|skip [--json] [--state-dir DIR]")
		return ExitUsage
	}
	switch args[0] {
	case "check":
		return cmdUpdateCheck(args[1:], stdout, stderr)
	case "apply":
		return cmdUpdateApply(args[1:], stdout, stderr)
	case "skip":
		return cmdUpdateSkip(args[1:], stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, updateUsage)
		return ExitOK
	}
	fmt.Fprintf(stderr, "hermes-desktop: update: unknown command %q\n%s", args[0], updateUsage)
	return ExitUsage
}

const updateUsage = `usage: hermes-desktop update check [--json]   what the feed offers: {current, latest, available, notes, reason}
       hermes-desktop update apply [--json]   download, verify and install it, hand the backends over;
                                              exits 0 once the new version serves, else 1 and why
       hermes-desktop update skip VERSION     stop offering VERSION ('' offers it again)
Each talks to the running instance (--state-dir DIR, env HERMES_DESKTOP_STATE_DIR).
Updates need a feed (run --update-feed, HERMES_DESKTOP_UPDATE_FEED or update_feed
in the settings; there is no default) and a build with an update key.
`

func cmdUpdateCheck(args []string, stdout, stderr io.Writer) int {
	r, code := callInstance("update check", args, protocol.OpUpdateCheck, protocol.None{}, stderr, false, true)
	if code >= 0 {
		return code
	}
	c := r.res
	if r.flags.json {
		fmt.Fprintln(stdout, string(r.raw))
	} else {
		printCheck(stdout, c)
	}
	if c.Failed() {
		return ExitError
	}
	return ExitOK
}

// updatesOff says why updates are off in one sentence: the message
// already opens with "updates are off" when it comes from update's errors.
func updatesOff(msg string) string {
	const lead = "updates are off"
	if rest, ok := strings.CutPrefix(msg, lead); ok {
		return "Updates are off" + rest
	}
	return "Updates are off: " + msg
}

func printCheck(w io.Writer, c update.Check) {
	switch {
	case c.Available && c.Command != "":
		fmt.Fprintf(w, "Hermes Desktop %s is available (this is %s), but %s.\nUpdate it with: %s\n", c.Latest, c.Current, c.Message, c.Command)
	case c.Available:
		fmt.Fprintf(w, "Hermes Desktop %s is available (this is %s).%s Install it with: hermes-desktop update apply\n", c.Latest, c.Current, downloadWords(c.Latest, c.Download))
	case c.Reason == "disabled":
		fmt.Fprintln(w, updatesOff(c.Message))
	case c.Reason == "no-build":
		_, why, _ := strings.Cut(c.Message, ": ") // after "no newer version for this install"
		fmt.Fprintf(w, "No update for this install (Hermes Desktop %s): %s\n", c.Current, why)
	case c.Reason == "rollout":
		_, why, _ := strings.Cut(c.Message, ": ") // after "no newer version for this install yet"
		fmt.Fprintf(w, "No update for this install yet (Hermes Desktop %s): %s.\n", c.Current, why)
	case c.Reason == "up-to-date" && c.Latest != "":
		fmt.Fprintf(w, "Hermes Desktop %s is up to date (the feed offers %s). %s\n", c.Current, c.Latest, c.Message)
	case c.Failed():
		// The message says what failed (the reason's one word is in --json).
		fmt.Fprintf(w, "The update check failed: %s.\n", strings.TrimSuffix(c.Message, "."))
	default:
		fmt.Fprintf(w, "No update (%s): %s\n", c.Reason, c.Message)
	}
	if c.Available && c.Notes != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimSpace(c.Notes))
	}
}

func cmdUpdateSkip(args []string, stdout, stderr io.Writer) int {
	var version string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		version, args = args[0], args[1:]
	}
	_, code := callInstance("update skip", args, protocol.OpUpdateSkip, protocol.SkipArgs{Version: version}, stderr, false, false)
	if code >= 0 {
		return code
	}
	if version == "" {
		fmt.Fprintln(stdout, "no version is skipped any more")
	} else {
		fmt.Fprintf(stdout, "version %s will not be offered\n", version)
	}
	return ExitOK
}

// cmdUpdateApply asks the running instance to update, prints its progress
// from its status while it works, and returns 0 only once the new version
// answers as the running instance.
func cmdUpdateApply(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("update apply", flag.ContinueOnError)
	fs.SetOutput(stderr)
	stateDir := fs.String("state-dir", "", "state directory of the instance (env HERMES_DESKTOP_STATE_DIR)")
	asJSON := fs.Bool("json", false, "print progress and the result as JSON lines")
	timeout := fs.Duration("timeout", 30*time.Minute, "how long the whole update may take")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ExitOK
		}
		return ExitUsage
	}
	dir, err := resolveStateDir(*stateDir)
	if err != nil {
		fmt.Fprintln(stderr, "hermes-desktop:", err)
		return ExitError
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	p := &progressPrinter{w: stdout, json: *asJSON}
	stop := p.follow(ctx, dir)
	res, err := protocol.OpUpdateApply.Call(ctx, dir, "", protocol.None{})
	stop()
	if err != nil {
		return p.failed(err, dir, stderr)
	}
	if res == nil {
		fmt.Fprintln(stderr, "hermes-desktop: update apply: unreadable answer: no result")
		return ExitError
	}
	r := *res
	if err := waitServing(ctx, dir, r); err != nil {
		fmt.Fprintln(stderr, "hermes-desktop: update apply:", err)
		return ExitError
	}
	if *asJSON {
		data, _ := json.Marshal(r)
		fmt.Fprintln(stdout, string(data))
	} else {
		fmt.Fprintf(stdout, "updated %s -> %s: pid %d serves (%.0f ms); it is watched for its health window, and rolled back if it fails\n", r.From, r.To, r.NewPID, r.ElapsedMS)
	}
	return ExitOK
}

// waitServing checks that the new version is the one answering.
func waitServing(ctx context.Context, dir string, r update.Result) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		st, err := protocol.StatusOf(ctx, dir)
		if err == nil && st.Instance.PID == r.NewPID && st.Instance.Version == r.To {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the new version (pid %d) does not answer as %s: %v", r.NewPID, r.To, err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// progressPrinter prints an update's progress as lines, read from the
// instance's status while the apply request runs.
type progressPrinter struct {
	w    io.Writer
	json bool
	mu   sync.Mutex // guards last and at
	last update.Info
	at   time.Time
}

// follow reads the status every 200 ms until the returned stop is called.
func (p *progressPrinter) follow(ctx context.Context, dir string) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { // ends with stop
		defer close(done)
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			if st, err := protocol.StatusOf(ctx, dir); err == nil && st.Instance.Update != nil {
				p.print(*st.Instance.Update)
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return func() { cancel(); <-done }
}

// print writes a line when the state changes, and while downloading at
// most twice a second.
func (p *progressPrinter) print(u update.Info) {
	p.mu.Lock()
	defer p.mu.Unlock()
	changed := u.State != p.last.State
	moving := u.State == update.StateDownloading && u.Bytes != p.last.Bytes && time.Since(p.at) >= 500*time.Millisecond
	if !changed && !moving {
		return
	}
	if p.last.State == update.StateDownloading && changed && p.last.Bytes != u.Bytes {
		p.line(u.Latest, update.StateDownloading, u) // the download's last figures
	}
	p.last, p.at = u, time.Now()
	p.line(u.Latest, u.State, u)
}

func (p *progressPrinter) line(version string, state update.State, u update.Info) {
	pct := 0.0
	if u.Total > 0 {
		pct = 100 * float64(u.Bytes) / float64(u.Total)
	}
	if p.json {
		data, _ := json.Marshal(map[string]any{"state": state, "latest": version, "bytes": u.Bytes, "total": u.Total, "percent": pct, "speed": u.Speed})
		fmt.Fprintln(p.w, string(data))
		return
	}
	switch state {
	case update.StateChecking:
		fmt.Fprintln(p.w, "checking the update feed")
	case update.StateDownloading:
		if d := u.Download; d != nil && d.Patch && u.Total == d.Size {
			version += " (a patch)" // a fallback to the full artifact has its size
		}
		fmt.Fprintf(p.w, "downloading %s: %s of %s (%.0f%%), %s/s\n", version, mib(u.Bytes), mib(u.Total), pct, mib(int64(u.Speed)))
	case update.StateReady:
		fmt.Fprintf(p.w, "downloaded and verified %s (%s)\n", version, mib(u.Total))
	case update.StateApplying:
		fmt.Fprintf(p.w, "installing %s: smoke test, swap, handing the backends over\n", version)
	}
}

// failed prints why the update did not happen and returns the exit code.
func (p *progressPrinter) failed(err error, dir string, stderr io.Writer) int {
	if errors.Is(err, control.ErrNotRunning) {
		fmt.Fprintf(stderr, "hermes-desktop is not running (no instance on state dir %s)\n", dir)
		return ExitNotRunning
	}
	code := errkind.CodeOf(err)
	var remote *errkind.RemoteError
	if errors.As(err, &remote) {
		code = remote.Code
	}
	if p.json {
		data, _ := json.Marshal(map[string]string{"error": err.Error(), "code": string(code)})
		fmt.Fprintln(p.w, string(data))
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, string(code)) { // "busy: busy: ..." says nothing twice
		msg = string(code) + ": " + msg
	}
	fmt.Fprintf(stderr, "hermes-desktop: update apply: %s\n", msg)
	return ExitError
}

// downloadWords says what installing version downloads: " 1.3.0: 1.2 MiB
// patch (full download 24.1 MiB)." or " 1.3.0: 24.1 MiB download."; "" when
// not known.
func downloadWords(version string, d *update.Download) string {
	switch {
	case d == nil:
		return ""
	case d.Patch:
		return fmt.Sprintf(" %s: %s patch (full download %s).", version, size(d.Size), size(d.Full))
	}
	return fmt.Sprintf(" %s: %s download.", version, size(d.Size))
}

// size is n in MiB, or in KiB below one MiB (a patch is often that small).
func size(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d KiB", max(1, (n+512)>>10))
	}
	return mib(n)
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
