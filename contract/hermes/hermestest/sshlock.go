// Package hermestest holds fixtures of Hermes' files for tests: what
// Hermes Desktop's SSH mode writes, as contract/hermes parses it. Only tests
// import it.
package hermestest

import "fmt"

// SSHLockID is the ownershipId of SSHLockJSON's lock: its directory name
// under desktop-ssh.
const SSHLockID = "0123456789abcdef0123456789abcdef"

// SSHLockJSON is a valid backend.lock.json (schema 2) for SSHLockID,
// passed through mutate (nil: as is) so a test can break one field.
func SSHLockJSON(mutate func(string) string) []byte {
	s := fmt.Sprintf(`{"schemaVersion":2,"protocolVersion":1,"ownershipId":%q,"spawnNonce":"0011223344556677",
"tokenFingerprint":"00112233445566778899aabbccddeeff","pid":4242,"port":41000,"profile":"default",
"hermesPath":"/usr/bin/hermes","hermesHome":"/home/u/.hermes",
"logPath":"/home/u/.hermes/desktop-ssh/%s/0011223344556677.log","startedAt":"2026-11-29T10:00:00Z","creationTime":"linux:123"}`, SSHLockID, SSHLockID)
	if mutate != nil {
		s = mutate(s)
	}
	return []byte(s)
}
