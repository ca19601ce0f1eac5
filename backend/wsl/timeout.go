package wsl

import (
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"time"

	"hermes-desktop/backend/transport"
	"hermes-desktop/platform/proc"
)

// killGrace is how long the timeout waits after SIGTERM before SIGKILL
// (the 2 of -k 2 in timeoutScript), and how long past that we wait for
// wsl.exe to report it.
const killGrace = 2 * time.Second

// timeoutScript runs "$@" for $0 seconds inside the distribution. GNU
// timeout signals the command's whole process group, SIGKILL killGrace
// later; where it is missing, perl's alarm ends the command itself.
const timeoutScript = `if command -v timeout >/dev/null 2>&1; then exec timeout -k 2 "$0" "$@"; fi; ` +
	`exec perl -e "alarm shift; exec @ARGV or exit 127" "$0" "$@"`

// Exit statuses that mean the timeout fired: timeout's own 124, 128+KILL
// after -k, 128+ALRM from perl's alarm.
var timeoutCodes = map[int]bool{124: true, 137: true, 142: true}

// TimeoutArgv wraps argv so that it runs for at most timeout (rounded up
// to whole seconds, at least 1) where it runs, killed there when it ends:
// `sh -c timeoutScript SECS argv...`. bound is how long the local side
// should wait for it: the timeout, the kill's grace, and a margin.
func TimeoutArgv(timeout time.Duration, argv []string) (timed []string, bound time.Duration) {
	n := max(1, int(timeout.Seconds()+0.999))
	return append([]string{"sh", "-c", timeoutScript, strconv.Itoa(n)}, argv...), time.Duration(n)*time.Second + 2*killGrace
}

// isTimeoutExit reports whether err is the exit of a TimeoutArgv command
// whose timeout fired.
func isTimeoutExit(err error) bool {
	var ee *exec.ExitError
	return errors.As(err, &ee) && timeoutCodes[ee.ExitCode()]
}

// startChannel starts cmd, wsl.exe running a long command, as a Channel:
// its stdin and stdout become the channel's, its stderr's tail goes into
// Wait's error, and its wait status is ours, not the orphan collector's.
func startChannel(cmd *exec.Cmd) (*transport.Channel, error) {
	// A process inside may hold wsl.exe's pipes after it exits.
	cmd.WaitDelay = waitDelay
	stderr := transport.NewTail(stderrTail)
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	waited, err := proc.StartChild(cmd)
	if err != nil {
		return nil, err // Start closed the pipes
	}
	wait := func() error {
		err := cmd.Wait()
		waited()
		if err != nil {
			return fmt.Errorf("wsl: channel: %w: %s", err, lastLine(stderr.String()))
		}
		return nil
	}
	return transport.NewChannel(stdin, stdout, wait, cmd.Process.Kill), nil
}
