//go:build unix

package hermes

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
)

// ReadSSHTokenFile reads an SSH-owned backend's session token from p, as
// Hermes does with FlagSSHSessionTokenFile, under the rules listed at
// SSHDirMode, and removes the file, read or not: the token is one-shot.
// userHome is this account's home.
func ReadSSHTokenFile(userHome, p string) (string, error) {
	defer os.Remove(p)
	if err := CheckSSHTokenPath(userHome, p); err != nil {
		return "", err
	}
	uid := os.Getuid()
	for _, dir := range []string{SSHRoot(userHome), filepath.Dir(p)} {
		fi, err := os.Lstat(dir)
		if err != nil {
			return "", fmt.Errorf("hermes: ssh token dir: %w", err)
		}
		if !fi.IsDir() || ownerOf(fi) != uid {
			return "", fmt.Errorf("hermes: %s is not a directory of this user", dir)
		}
	}
	if fi, _ := os.Lstat(filepath.Dir(p)); fi.Mode().Perm() != SSHDirMode {
		return "", fmt.Errorf("hermes: %s has mode %o, want %o", filepath.Dir(p), fi.Mode().Perm(), SSHDirMode)
	}
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return "", fmt.Errorf("hermes: ssh token file: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("hermes: ssh token file: %w", err)
	}
	if !fi.Mode().IsRegular() || ownerOf(fi) != uid || fi.Mode().Perm()&^SSHTokenFileMode != 0 {
		return "", fmt.Errorf("hermes: ssh token file %s: not a regular file of this user with mode 0600 or less", p)
	}
	b, err := io.ReadAll(io.LimitReader(f, SSHTokenLen+1))
	if err != nil {
		return "", fmt.Errorf("hermes: ssh token file: %w", err)
	}
	if len(b) != SSHTokenLen || !isLowerHex(string(b), SSHTokenLen) {
		return "", errors.New("hermes: ssh token file does not hold 64 lowercase hex digits")
	}
	return string(b), nil
}

func ownerOf(fi os.FileInfo) int {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid)
	}
	return -1
}
