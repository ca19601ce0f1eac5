package hermes

import "errors"

// ReadSSHTokenFile refuses: SSH-owned backends run on Unix hosts only
// (remote backends' hosts are Linux and macOS).
func ReadSSHTokenFile(userHome, p string) (string, error) {
	return "", errors.New("hermes: ssh session token files are read on Unix hosts only")
}
