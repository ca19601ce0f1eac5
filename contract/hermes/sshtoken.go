package hermes

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// NewSSHToken returns a session token for an SSH-owned backend, in the
// form a token file holds: SSHTokenLen lowercase hex digits.
func NewSSHToken() (string, error) {
	var b [SSHTokenLen / 2]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("hermes: ssh session token: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// SSHTokenFingerprint is a lock's tokenFingerprint for token: the first 32
// hex digits of its SHA-256, which names the token without revealing it.
func SSHTokenFingerprint(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:16])
}

// NewSpawnNonce returns a spawn nonce (ValidSpawnNonce).
func NewSpawnNonce() (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("hermes: spawn nonce: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// NewOwnershipID returns an ownership id (ValidOwnershipID).
func NewOwnershipID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("hermes: ownership id: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}
