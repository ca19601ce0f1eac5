//go:build unix

package ssh

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

func checkPlatform() error { return nil }

// setProcAttr puts ssh in its own process group, so a terminal's ^C
// reaches the app, which closes its hosts in order, and not ssh first.
func setProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// SweepStale removes the control sockets in dir that nobody listens on
// (their master died with a crashed or killed instance): each instance
// names its own, so these are never reused and would pile up. A socket
// that answers, or whose state cannot be told, is left alone.
func SweepStale(dir string) (removed int) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "cm-") || e.Type()&fs.ModeSocket == 0 {
			continue
		}
		path := filepath.Join(dir, e.Name())
		c, err := net.DialTimeout("unix", path, time.Second)
		if err == nil {
			c.Close()
			continue
		}
		if errors.Is(err, syscall.ECONNREFUSED) && os.Remove(path) == nil {
			removed++
		}
	}
	return removed
}
