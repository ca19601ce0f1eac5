package backend

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"

	"hermes-desktop/backend/reclaim"
	"hermes-desktop/platform/proc"
)

// openerVerdict is how long OpenExternal waits to hear that the opener
// failed. Openers hand the target over and exit at once (xdg-open with no
// handler exits 3 or 4 in milliseconds); one still running after this has
// started a program that waits for its window, and counts as opened.
const openerVerdict = 2 * time.Second

// OpenExternal opens a URL or a folder with the desktop's default handler,
// and says, in words a person reads, when that failed: no opener installed,
// or one that exited with an error. It waits for the opener at most
// openerVerdict, but owns its Wait until it exits, so nothing is left as a
// zombie; whatever the handler leaves behind (a browser xdg-open started,
// a child that hands off to a running browser) is collected by
// proc.CollectOrphans, woken when the handler exits.
func (p *Pages) OpenExternal(target string) error {
	argv := openerCommand(target)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), reclaim.HelperEnv+"="+p.nonce)
	cmd.SysProcAttr = openerAttr()
	waited, err := proc.StartChild(cmd)
	if errors.Is(err, exec.ErrNotFound) {
		return &openError{fmt.Sprintf("could not open it: %s, which opens files and links, is not installed", argv[0]), err}
	}
	if err != nil {
		return fmt.Errorf("could not open %s: %w", target, err)
	}
	exited := make(chan error, 1) // buffered: the goroutine never blocks on a caller gone
	go func() {                   // ends when the opener exits
		err := cmd.Wait()
		waited()
		proc.WakeCollector() // its children are ours now
		exited <- err
	}()
	select {
	case err := <-exited:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return &openError{fmt.Sprintf("could not open %s: %s found no program for it (exit status %d)", target, argv[0], ee.ExitCode()), err}
		}
		if err != nil {
			return fmt.Errorf("could not open %s: %w", target, err)
		}
	case <-time.After(openerVerdict):
	}
	return nil
}

// openError says why nothing opened in a person's words; the exec error
// it wraps ("exec: \"xdg-open\": executable file not found in $PATH")
// stays reachable with errors.Is and As, but is not shown.
type openError struct {
	msg string
	err error
}

func (e *openError) Error() string { return e.msg }
func (e *openError) Unwrap() error { return e.err }
