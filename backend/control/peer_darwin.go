package control

import "golang.org/x/sys/unix"

// peerUID reads the connected peer's uid (LOCAL_PEERCRED).
func peerUID(fd int) (int, error) {
	cred, err := unix.GetsockoptXucred(fd, unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	if err != nil {
		return 0, err
	}
	return int(cred.Uid), nil
}
