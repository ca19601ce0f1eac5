package update

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"hermes-desktop/lockfile"
)

// Staged rollout: a manifest may offer its release to a share of the
// installs (Manifest.Rollout, 0-100) before the rest. Each install keeps a
// random id of its own, <state>/updates/install-id (IDFile: 32 hex digits,
// 0600, made the first time a release is being rolled out); its bucket, 0-99, is a hash of the id
// alone, so the same installs go first every release (the version is not
// mixed in). A release is offered when the bucket is below the share, or
// when it is critical.

// IDFile is the install id's file name in <state>/updates.
const IDFile = "install-id"

// installID reads this install's id from dir, making it at the first call.
// An id that does not read as 32 lowercase hex digits (a nonce, as
// lockfile.NewNonce makes) is replaced: it only orders the install in a
// rollout, and a new one is as good.
func installID(dir string) (string, error) {
	data, err := lockfile.ReadLimited(filepath.Join(dir, IDFile), 64)
	id := strings.TrimSpace(string(data))
	if err == nil && lockfile.ValidNonce(id) == nil {
		return id, nil
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, lockfile.ErrTooLarge) {
		return "", fmt.Errorf("update: install id: %w", err)
	}
	if id, err = lockfile.NewNonce(); err != nil {
		return "", fmt.Errorf("update: install id: %w", err)
	}
	if err := writePrivate(dir, IDFile, []byte(id+"\n")); err != nil {
		return "", err // names the file
	}
	return id, nil
}

// bucketOf is an install id's place in a rollout, 0-99: the first 8 bytes
// of SHA-256(id), mod 100. The same id has the same bucket every release.
func bucketOf(id string) int {
	sum := sha256.Sum256([]byte(id))
	return int(binary.BigEndian.Uint64(sum[:8]) % 100)
}

// Offered reports whether a release with m's rollout and critical flag is
// offered to the install in bucket (100: an install without an id, last).
func (m *Manifest) Offered(bucket int) bool {
	return m.Critical || m.Rollout == nil || *m.Rollout >= 100 || bucket < *m.Rollout
}
