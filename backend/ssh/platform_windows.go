package ssh

import "os/exec"

// checkPlatform: Windows' OpenSSH has no ControlMaster (it needs Unix
// sockets and fd passing), and one connection per command would mean one
// authentication per command, the storm this package exists to avoid
// (Hermes #90834). Remote backends on Windows are to run through WSL.
func checkPlatform() error { return ErrNoMultiplexing }

func setProcAttr(*exec.Cmd) {}

// SweepStale has nothing to sweep: there are no control sockets here.
func SweepStale(string) int { return 0 }
