package instance

import (
	"errors"
	"fmt"
	"io"
	"os"

	"hermes-desktop/platform/proc"
	"hermes-desktop/watchdog"
)

// shimPipes are the launcher's ends of its two pipes to a watchdog shim.
// The protocol they carry, like the shim's command line, is defined in
// watchdog/protocol.go; this file only follows it.
type shimPipes struct {
	lifeline *os.File // write end
	report   *os.File // read end
}

// prepareShim makes the pipes and rewrites argv to run the backend behind
// the shim, whose flags name the shim's ends as the shim will know them.
// It returns the pipes, whose shim ends start attaches to the command and
// the caller closes after the start.
func (i *Instance) prepareShim(p Params) (*watchdog.ShimPipes, error) {
	pipes, err := watchdog.NewShimPipes()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errSpawn, err)
	}
	i.shim = shimPipes{lifeline: pipes.Lifeline, report: pipes.Report}
	i.argv = watchdog.ShimCommand(p.Self, watchdog.ShimOptions{
		Lifeline:  pipes.ShimLifeline,
		Report:    pipes.ShimReport,
		OwnerExit: pipes.ShimOwnerExit,
		Parent:    watchdog.Parent{PID: p.Owner.PID, Start: p.Owner.Start, Nonce: i.nonce},
		Grace:     p.Spec.Grace,
		Cgroup:    i.shimCgroup(),
		Argv:      p.Spec.Command,
	})
	return pipes, nil
}

// Release lets the shim start the backend. The caller has recorded the shim
// first, so no backend ever runs without an ownership record.
func (i *Instance) Release() error {
	i.released = true
	if !i.viaShim {
		return nil
	}
	if _, err := io.WriteString(i.shim.lifeline, watchdog.FormatStart()); err != nil {
		return fmt.Errorf("backend %s: release shim: %w", i.spec.Name, err)
	}
	return nil
}

// readShimReport reads the backend's identity from the shim. It ends at the
// report or at EOF (the shim died or failed to start the backend). It is the
// only writer of backendID.
func (i *Instance) readShimReport() {
	r, err := watchdog.ReadReport(i.shim.report)
	if errors.Is(err, watchdog.ErrBadReport) {
		i.log.Add("launcher", fmt.Sprintf("report from the watchdog shim: %v", err))
		return
	}
	if err != nil {
		return // no report: the shim died, or we closed the pipe
	}
	if r.Error != "" {
		i.log.Add("launcher", "the watchdog shim could not start the backend: "+r.Error)
		return
	}
	id := proc.Identity{PID: r.PID, Start: r.Start, BootID: proc.BootID()}
	if err := id.Validate(); err != nil {
		i.log.Add("launcher", fmt.Sprintf("invalid report from the watchdog shim: %v", err))
		return
	}
	i.backendID = id
	i.takeReport(r.Cgroup, r.CgroupError)
	close(i.backendKnown)
}

// closeShimPipes closes our ends of the shim's pipes: its lifeline closing
// tells the shim to tear its tree down.
func (i *Instance) closeShimPipes() {
	if i.shim.lifeline != nil {
		i.shim.lifeline.Close()
	}
	if i.shim.report != nil {
		i.shim.report.Close()
	}
}
