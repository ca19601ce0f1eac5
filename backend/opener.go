package backend

import (
	"fmt"
	"hermes-desktop/backend/reclaim"
	"os"
	"os/exec"
)

// OpenExternal opens a URL or a folder with the desktop's default handler.
// It does not wait for the handler, but it owns its Wait, so nothing is left
// as a zombie; whatever the handler leaves behind is reaped by the reclaimer.
func (l *Launcher) OpenExternal(target string) error {
	argv := openerCommand(target)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), reclaim.HelperEnv+"="+l.nonce)
	cmd.SysProcAttr = openerAttr()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("open %s: %w", target, err)
	}
	go func() { _ = cmd.Wait() }() // ends when the opener exits, which openers do at once
	return nil
}
