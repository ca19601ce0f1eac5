package watchdog

import (
	"crypto/rand"
	"encoding/hex"
)

// randomNonce returns 16 random bytes as hex, the HERMES_PARENT_NONCE format.
func randomNonce() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
