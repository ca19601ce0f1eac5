package watchdog

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

// ShimClient is the launcher's side of one watchdog shim, the one way a
// process is started behind it (a backend, an ssh master): StartShim
// starts it, Release lets the shim start its command, ReadReport reads
// what the shim says of it, Stop asks for its teardown and Close lets go,
// which the shim takes as its owner's end. The wire it speaks is
// protocol.go's.
type ShimClient struct {
	lifeline *os.File // our write end; EOF on it ends the shim's tree
	report   *os.File // our read end; nil for a shim adopted from a predecessor
}

// StartShim starts o.Argv behind a shim run from self (this app's
// executable). It makes the pipes and fills in o's Lifeline, Report and
// OwnerExit; prepare then sets the command up as the caller needs (its
// environment, process attributes, output) and start starts it, the
// caller's own start of a child it will wait for (proc.StartChild, say).
// The shim waits at its start barrier until Release. On error nothing runs
// and no pipe is left open.
func StartShim(self string, o ShimOptions, prepare, start func(*exec.Cmd) error) (*exec.Cmd, *ShimClient, error) {
	pipes, err := NewShimPipes()
	if err != nil {
		return nil, nil, err
	}
	o.Lifeline, o.Report, o.OwnerExit = pipes.ShimLifeline, pipes.ShimReport, pipes.ShimOwnerExit
	argv := ShimCommand(self, o)
	cmd := exec.Command(argv[0], argv[1:]...)
	err = prepare(cmd)
	if err == nil {
		err = pipes.Attach(cmd)
	}
	if err == nil {
		err = start(cmd)
	}
	// The shim has its copies; ours would keep the report from ever
	// seeing EOF should the shim die.
	pipes.CloseShimEnds()
	c := &ShimClient{lifeline: pipes.Lifeline, report: pipes.Report}
	if err != nil {
		c.Close()
		return nil, nil, err
	}
	return cmd, c, nil
}

// AdoptShim is the client of a shim a predecessor started and handed over
// with its lifeline's write end: it has no report to read.
func AdoptShim(lifeline *os.File) *ShimClient {
	return &ShimClient{lifeline: lifeline}
}

// Release lets the shim start its command: the caller has recorded the
// shim first, so nothing runs without an ownership record.
func (c *ShimClient) Release() error {
	if _, err := io.WriteString(c.lifeline, FormatStart()); err != nil {
		return fmt.Errorf("watchdog: release the shim: %w", err)
	}
	return nil
}

// ReadReport reads the shim's report on its command (ReadReport's
// errors), then closes our end: the report is one line.
func (c *ShimClient) ReadReport() (Report, error) {
	if c.report == nil {
		return Report{}, fmt.Errorf("watchdog: read report: %w", io.EOF)
	}
	defer c.report.Close()
	return ReadReport(c.report)
}

// Stop asks the shim to tear its command's tree down now, as SIGTERM to
// the shim does; it is how to ask a shim no signal reaches (Windows).
func (c *ShimClient) Stop() error {
	if _, err := io.WriteString(c.lifeline, FormatStop()); err != nil {
		return fmt.Errorf("watchdog: ask the shim to stop: %w", err)
	}
	return nil
}

// Lifeline is our end of the shim's lifeline, for a successor to inherit.
func (c *ShimClient) Lifeline() *os.File { return c.lifeline }

// Close closes our ends: the lifeline's EOF tells the shim that its owner
// is gone, and it tears its tree down. It returns the lifeline's close
// error (os.ErrClosed when it was closed already).
func (c *ShimClient) Close() error {
	if c.report != nil {
		c.report.Close()
	}
	return c.lifeline.Close()
}

// shimLogMark marks the shim's own log lines on the stderr it shares with
// its command: its slog text handler writes them with component=watchdog
// (ShimMain).
const shimLogMark = "component=watchdog"

// WithoutShimLog is text a shim's stderr carried without the shim's own
// log lines: what its command said.
func WithoutShimLog(text string) string {
	var b strings.Builder
	for line := range strings.Lines(text) {
		if !strings.Contains(line, shimLogMark) {
			b.WriteString(line)
		}
	}
	return b.String()
}
