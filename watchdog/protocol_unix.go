//go:build unix

package watchdog

import (
	"errors"
	"os"
	"os/exec"
)

// ShimFiles returns the shim's extra files (exec.Cmd.ExtraFiles) in fd
// order: the lifeline's read end lands on LifelineFD, the report's write end
// on ReportFD. ShimPipes.Attach uses it; it is exported for tools that make
// their own pipes (bench/containment).
func ShimFiles(lifeline, report *os.File) []*os.File {
	files := make([]*os.File, ReportFD-firstExtraFD+1)
	files[LifelineFD-firstExtraFD] = lifeline
	files[ReportFD-firstExtraFD] = report
	return files
}

// keepFromChildren has nothing to do on Unix: os.Pipe opens both ends
// close-on-exec, and ExtraFiles dups only what it is given.
func keepFromChildren(*os.File) error { return nil }

// shimEnd is fd: ExtraFiles puts the end there in the child.
func shimEnd(_ *os.File, fd int) (int, error) { return fd, nil }

// attachShimEnds passes the ends as the child's fds 3 and 4, and the exit
// word, when there is one, as fd 5.
func attachShimEnds(cmd *exec.Cmd, lifeline, report, ownerExit *os.File) error {
	if len(cmd.ExtraFiles) > 0 {
		return errors.New("watchdog: attach shim pipes: the command has extra files already, which would move the shim's fds")
	}
	cmd.ExtraFiles = ShimFiles(lifeline, report)
	if ownerExit != nil {
		cmd.ExtraFiles = append(cmd.ExtraFiles, ownerExit)
	}
	return nil
}
