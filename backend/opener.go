package backend

import (
	"fmt"
	"hermes-desktop/backend/reclaim"
	"hermes-desktop/internal/proc"
	"os"
	"os/exec"
)

// OpenExternal opens a URL or a folder with the desktop's default handler.
// It does not wait for the handler, but it owns its Wait, so nothing is left
// as a zombie; whatever the handler leaves behind (a browser xdg-open
// started, a child that hands off to a running browser) is reaped by
// proc.ReapOrphans, woken when the handler exits.
func (l *Launcher) OpenExternal(target string) error {
	argv := openerCommand(target)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), reclaim.HelperEnv+"="+l.nonce)
	cmd.SysProcAttr = openerAttr()
	waited, err := proc.StartChild(cmd)
	if err != nil {
		return fmt.Errorf("open %s: %w", target, err)
	}
	go func() { // ends when the opener exits, which openers do at once
		_ = cmd.Wait()
		waited()
		proc.WakeReaper() // its children are ours now
	}()
	return nil
}
