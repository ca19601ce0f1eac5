package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"hermes-desktop/backend/control"
	"hermes-desktop/backend/control/protocol"
	"hermes-desktop/backend/diagnose"
	"hermes-desktop/backend/update"
)

// cmdDiagnose writes the diagnostic report (backend/diagnose): what a
// person sends when something went wrong, with every secret redacted.
func cmdDiagnose(args []string, version string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("diagnose", flag.ContinueOnError)
	fs.SetOutput(stderr)
	stateDir := fs.String("state-dir", "", "state directory (env HERMES_DESKTOP_STATE_DIR)")
	now := time.Now()
	out := fs.String("o", diagnose.FileName(now), "where to write the report (a .zip)")
	err := fs.Parse(args)
	if err == nil && fs.NArg() > 0 {
		err = fmt.Errorf("diagnose: unexpected argument %q", fs.Arg(0))
	}
	if code, done := usageError(err, stderr); done {
		return code
	}
	dir, err := resolveStateDir(*stateDir)
	if err != nil {
		fmt.Fprintln(stderr, "hermes-desktop:", err)
		return ExitError
	}
	in := diagnose.Input{StateDir: dir, Version: version, Flavour: update.Flavour, Now: now}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	st, err := protocol.OpStatus.Call(ctx, dir, "", protocol.None{})
	cancel()
	switch {
	case err == nil:
		in.Status = &st
	case errors.Is(err, control.ErrNotRunning):
		in.StatusErr = "hermes-desktop is not running on " + dir
	default:
		in.StatusErr = err.Error()
	}
	path, _ := filepath.Abs(*out)
	sum, err := diagnose.Save(path, in)
	if err != nil {
		fmt.Fprintln(stderr, "hermes-desktop:", err)
		return ExitError
	}
	printSaved(stdout, path, sum)
	return ExitOK
}

// printSaved says where the report is and what it holds.
func printSaved(w io.Writer, path string, sum diagnose.Summary) {
	fmt.Fprintf(w, "saved the diagnostic report to %s\n%d files, %s before compression; secrets are replaced by %s: look it over before you send it\n",
		path, len(sum.Files), fmt.Sprintf("%.1f MiB", float64(sum.Bytes)/(1<<20)), diagnose.Redacted)
	for _, s := range sum.Skipped {
		fmt.Fprintf(w, "left out: %s\n", s)
	}
}
