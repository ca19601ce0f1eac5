package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"hermes-desktop/backend/control"
	"hermes-desktop/backend/control/protocol"
)

// handoffUsage is the help of hermes-desktop handoff, before its flags.
const handoffUsage = `usage: hermes-desktop handoff [--to PATH] [--mode restart|adopt] [--timeout D] [--state-dir DIR]

Hands the running instance over to the binary at PATH (an update), with no
orphan and no duplicate backend:
  restart  the running instance tears its backends down and exits; PATH
           boots normally (reap, spawn). Downtime: teardown + start.
  adopt    the backends keep running: PATH takes them over (same PIDs,
           same ports) and the old instance exits. No downtime.
Without --to, applies an update a package upgrade put on disk: the running
instance's own executable, replaced (adopt mode unless --mode says
otherwise; refused when it has not changed).
Exits 0 once the new instance answers; otherwise the old one is still in
charge (with its backends), and the reason is printed.`

func cmdHandoff(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("handoff", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, handoffUsage)
		fs.PrintDefaults()
	}
	to := fs.String("to", "", "path of the new hermes-desktop binary (default: the running one's executable, replaced on disk)")
	mode := fs.String("mode", "", "restart or adopt (default: restart with --to, adopt without)")
	timeout := fs.Duration("timeout", time.Minute, "how long the whole handoff may take")
	stateDir := fs.String("state-dir", "", "state directory of the instance (env HERMES_DESKTOP_STATE_DIR)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ExitOK
		}
		return ExitUsage
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return ExitUsage
	}
	if *mode == "" {
		*mode = string(protocol.HandoffRestart)
		if *to == "" {
			*mode = string(protocol.HandoffAdopt)
		}
	}
	dir, err := resolveStateDir(*stateDir)
	if err != nil {
		fmt.Fprintln(stderr, "hermes-desktop:", err)
		return ExitError
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout+10*time.Second)
	defer cancel()
	r, err := protocol.OpHandoff.Call(ctx, dir, "", protocol.HandoffArgs{To: *to, Mode: protocol.HandoffMode(*mode), TimeoutNS: int64(*timeout)})
	if errors.Is(err, control.ErrNotRunning) {
		fmt.Fprintf(stderr, "hermes-desktop is not running (no instance on state dir %s)\n", dir)
		return ExitNotRunning
	}
	if err != nil {
		fmt.Fprintln(stderr, "hermes-desktop: handoff failed:", err)
		return ExitError
	}
	if r == nil {
		fmt.Fprintln(stderr, "hermes-desktop: handoff: unreadable answer: no result")
		return ExitError
	}
	fmt.Fprintf(stdout, "handed over (%s) to pid %d in %.0f ms\n", r.Mode, r.NewPID, r.ElapsedMS)
	return ExitOK
}
