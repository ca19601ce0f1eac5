package backend

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"

	"hermes-desktop/internal/proc"
	"hermes-desktop/watchdog"
)

// Launcher side of the watchdog shim (see watchdog.ShimMain). Two pipes join
// the launcher and each shim:
//
//   - the lifeline: the shim holds the read end as fd 3, the launcher the
//     write end (close-on-exec, so no other child inherits it). The launcher
//     writes "start" once the shim is recorded, then nothing: EOF, which
//     happens however the launcher dies, tells the shim to tear down.
//   - the report pipe: the shim writes the backend's PID and start marker on
//     fd 4 as one JSON line and closes it.
type shimPipes struct {
	lifeline *os.File // write end
	report   *os.File // read end
}

// Fd numbers the shim sees: ExtraFiles start at 3.
const (
	shimLifelineFD = 3
	shimReportFD   = 4
)

// prepareShim makes the pipes and rewrites argv to run the backend behind
// the shim. It returns the child's ends, which the caller closes after start.
func (i *instance) prepareShim(p spawnParams) ([]*os.File, error) {
	lifeR, lifeW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("%w: lifeline pipe: %w", errSpawn, err)
	}
	repR, repW, err := os.Pipe()
	if err != nil {
		lifeR.Close()
		lifeW.Close()
		return nil, fmt.Errorf("%w: report pipe: %w", errSpawn, err)
	}
	i.shim = shimPipes{lifeline: lifeW, report: repR}
	i.argv = append([]string{
		p.self, "watchdog",
		"--lifeline", strconv.Itoa(shimLifelineFD),
		"--report", strconv.Itoa(shimReportFD),
		"--parent-pid", strconv.Itoa(p.owner.PID),
		"--parent-marker", p.owner.Start,
		"--nonce", i.nonce,
		"--grace", p.spec.Grace.String(),
		"--",
	}, p.spec.Command...)
	return []*os.File{lifeR, repW}, nil
}

// release lets the shim start the backend. The caller has recorded the shim
// first, so no backend ever runs without an ownership record.
func (i *instance) release() error {
	if !i.viaShim {
		return nil
	}
	if _, err := io.WriteString(i.shim.lifeline, watchdog.StartMessage+"\n"); err != nil {
		return fmt.Errorf("backend %s: release shim: %w", i.spec.Name, err)
	}
	return nil
}

// readShimReport reads the backend's identity from the shim. It ends at the
// report or at EOF (the shim died or failed to start the backend). It is the
// only writer of backendID.
func (i *instance) readShimReport() {
	line, err := bufio.NewReaderSize(io.LimitReader(i.shim.report, 4096), 4096).ReadBytes('\n')
	if err != nil && len(line) == 0 {
		return
	}
	var r watchdog.Report
	if err := json.Unmarshal(line, &r); err != nil {
		i.log.add("launcher", fmt.Sprintf("unreadable report from the watchdog shim: %q", line))
		return
	}
	if r.Error != "" {
		i.log.add("launcher", "the watchdog shim could not start the backend: "+r.Error)
		return
	}
	id := proc.Identity{PID: r.PID, Start: r.Start, BootID: proc.BootID()}
	if err := id.Validate(); err != nil {
		i.log.add("launcher", fmt.Sprintf("invalid report from the watchdog shim: %v", err))
		return
	}
	i.backendID = id
	close(i.backendKnown)
}

func (i *instance) closeShimPipes() {
	if i.shim.lifeline != nil {
		i.shim.lifeline.Close()
	}
	if i.shim.report != nil {
		i.shim.report.Close()
	}
}
