package lockfile

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
)

// NewNonce returns 128 random bits as 32 lowercase hex digits.
func NewNonce() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("lockfile: read random nonce: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// ValidNonce checks that s is 32 lowercase hex digits, the only names we
// ever use as file and directory names.
func ValidNonce(s string) error {
	if !isLowerHex(s, 32) {
		return fmt.Errorf("lockfile: invalid nonce %q: want 32 lowercase hex digits", s)
	}
	return nil
}

func isLowerHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// CgroupPrefix starts the name of every backend's cgroup: the backend's
// nonce follows, so that membership in the cgroup is itself the evidence
// of whose backend a process belongs to.
const CgroupPrefix = "hermes-backend-"

// CgroupName is the name of the cgroup of the backend with this nonce.
func CgroupName(nonce string) string { return CgroupPrefix + nonce }

// CgroupNonce returns the backend nonce a cgroup's name carries: the last
// element of a path, "hermes-backend-<nonce>". ok is false for any other
// name.
func CgroupNonce(path string) (nonce string, ok bool) {
	leaf := path[strings.LastIndexByte(path, '/')+1:]
	nonce, ok = strings.CutPrefix(leaf, CgroupPrefix)
	if !ok || ValidNonce(nonce) != nil {
		return "", false
	}
	return nonce, true
}
