package hermes

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// Hermes Desktop's SSH mode keeps, per remote backend, a directory
// ~/.hermes/desktop-ssh/<ownershipId>/ (the user's home, whatever EnvHome
// says) holding the lock SSHLockName, the session token file
// <spawnNonce>.token and the log <spawnNonce>.log. Hermes' tools spare what
// a valid lock names; a launcher that cannot read a lock with certainty
// fails closed.

// ErrMalformed means an ownership file of Hermes (an SSH lock, a gateway PID
// file) does not match its schema.
var ErrMalformed = errors.New("hermes: malformed ownership file")

// ErrNoRecord means an ownership file holds nothing (it is empty or only
// whitespace): to Hermes that is no record at all, so it names nobody.
var ErrNoRecord = errors.New("hermes: empty ownership file (no record)")

const (
	// SSHDirName is the directory, under HomeDirName, of SSH-owned
	// backends' directories.
	SSHDirName = "desktop-ssh"
	// SSHLockName is the lock file in an SSH backend's directory.
	SSHLockName = "backend.lock.json"
	// MaxOwnershipFileSize bounds an SSH lock and a gateway PID file: a
	// larger one is malformed.
	MaxOwnershipFileSize = 64 << 10
	// maxLockString bounds each string field of an SSH lock.
	maxLockString = 1024
	// maxPID is the largest PID Linux hands out (pid_max's ceiling).
	maxPID = 4194304
)

// SSHLock is a remote SSH backend's lock, desktop-ssh/<ownershipId>/
// backend.lock.json, schema version 2. ParseSSHLock checks every field.
type SSHLock struct {
	SchemaVersion    int    `json:"schemaVersion"`    // 2
	ProtocolVersion  int    `json:"protocolVersion"`  // 1
	OwnershipID      string `json:"ownershipId"`      // the directory's name, 32 lowercase hex
	SpawnNonce       string `json:"spawnNonce"`       // 16 lowercase hex; FlagSSHOwnerNonce
	TokenFingerprint string `json:"tokenFingerprint"` // 32 lowercase hex
	PID              int    `json:"pid"`              // 1..4194304
	Port             int    `json:"port"`             // 0..65535
	Profile          string `json:"profile"`
	HermesPath       string `json:"hermesPath"`
	HermesHome       string `json:"hermesHome"`
	LogPath          string `json:"logPath"` // ends /<ownershipId>/<spawnNonce>.log
	StartedAt        string `json:"startedAt"`
	// CreationTime is the process's start marker, linux:<ticks> or
	// darwin:<lstart>; "" when absent.
	CreationTime string `json:"creationTime,omitempty"`
}

// sshLockFields are the fields a lock must have, present even when zero.
var sshLockFields = []string{"schemaVersion", "protocolVersion", "ownershipId", "spawnNonce", "tokenFingerprint",
	"pid", "port", "profile", "hermesPath", "hermesHome", "logPath", "startedAt"}

// creationTimeRE is compiled on first use, not at init: every process of
// this binary (the watchdog shim first, whose start is timed) would pay for
// it otherwise.
var creationTimeRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(linux:[0-9]+|darwin:[^\x00-\x1f]+)$`)
})

// ParseSSHLock decodes and validates an SSH lock found in the directory
// named dirID. Every field the schema names is required, with the types and
// bounds Hermes writes; anything else is ErrMalformed.
func ParseSSHLock(data []byte, dirID string) (*SSHLock, error) {
	if len(data) > MaxOwnershipFileSize {
		return nil, fmt.Errorf("%w: over %d bytes", ErrMalformed, MaxOwnershipFileSize)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	for _, k := range sshLockFields {
		if _, ok := raw[k]; !ok {
			return nil, fmt.Errorf("%w: no %s", ErrMalformed, k)
		}
	}
	var l SSHLock
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(&l); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if err := l.validate(dirID); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	return &l, nil
}

func (l *SSHLock) validate(dirID string) error {
	switch {
	case l.SchemaVersion != 2:
		return fmt.Errorf("schemaVersion %d, want 2", l.SchemaVersion)
	case l.ProtocolVersion != 1:
		return fmt.Errorf("protocolVersion %d, want 1", l.ProtocolVersion)
	case !ValidOwnershipID(dirID):
		return fmt.Errorf("directory %q is not 32 lowercase hex digits", dirID)
	case l.OwnershipID != dirID:
		return fmt.Errorf("ownershipId %q is not the directory name", l.OwnershipID)
	case !ValidSpawnNonce(l.SpawnNonce):
		return fmt.Errorf("spawnNonce %q", l.SpawnNonce)
	case !isLowerHex(l.TokenFingerprint, 32):
		return fmt.Errorf("tokenFingerprint %q", l.TokenFingerprint)
	case l.PID < 1 || l.PID > maxPID:
		return fmt.Errorf("pid %d", l.PID)
	case l.Port < 0 || l.Port > 65535:
		return fmt.Errorf("port %d", l.Port)
	case l.CreationTime != "" && !creationTimeRE().MatchString(l.CreationTime):
		return fmt.Errorf("creationTime %q", l.CreationTime)
	}
	for name, v := range map[string]string{"profile": l.Profile, "hermesPath": l.HermesPath, "hermesHome": l.HermesHome,
		"logPath": l.LogPath, "startedAt": l.StartedAt, "creationTime": l.CreationTime} {
		if len(v) > maxLockString {
			return fmt.Errorf("%s is over %d bytes", name, maxLockString)
		}
	}
	if !strings.HasSuffix(l.LogPath, "/"+dirID+"/"+l.SpawnNonce+".log") {
		return fmt.Errorf("logPath %q does not end in /%s/%s.log", l.LogPath, dirID, l.SpawnNonce)
	}
	return nil
}

// SSHLockDirs returns the directories of this machine SSH locks may be in:
// $HERMES_HOME/desktop-ssh, and ~/.hermes/desktop-ssh, where Hermes Desktop
// writes them whatever HERMES_HOME is. userHome "" leaves the second out.
func SSHLockDirs(hermesHome, userHome string) []string {
	dirs := []string{filepath.Join(hermesHome, SSHDirName)}
	if userHome != "" {
		dirs = append(dirs, filepath.Join(userHome, HomeDirName, SSHDirName))
	}
	return dirs
}

// SSHRoot is, on a remote Unix host whose account's home is userHome,
// where Hermes Desktop keeps its SSH backends' directories, and the only
// place Hermes accepts a session token file from: ~/.hermes/desktop-ssh,
// whatever EnvHome or the active profile say. Remote paths are
// slash-separated whatever this machine's OS.
func SSHRoot(userHome string) string {
	return path.Join(userHome, HomeDirName, SSHDirName)
}

// SSHTokenFile is the session token file of the SSH backend ownershipID
// spawned with spawnNonce, as FlagSSHSessionTokenFile gives it:
// <SSHRoot>/<ownershipID>/<spawnNonce>.token.
func SSHTokenFile(userHome, ownershipID, spawnNonce string) string {
	return path.Join(SSHRoot(userHome), ownershipID, spawnNonce+".token")
}

// Rules Hermes applies to the session token file before it reads it (and
// removes it, read or not): SSHRoot and the directory <ownershipID> are
// the user's, that directory's mode exactly SSHDirMode; the file is a
// regular file (no symlink), the user's, with no mode bits beyond
// SSHTokenFileMode, and holds exactly SSHTokenLen lowercase hex digits.
const (
	// SSHDirMode is the mode an SSH backend's directory must have.
	SSHDirMode = 0o700
	// SSHTokenFileMode is the most a token file's mode may allow.
	SSHTokenFileMode = 0o600
	// SSHTokenLen is the token file's exact size: 64 lowercase hex digits,
	// no newline.
	SSHTokenLen = 64
)

// CheckSSHTokenPath applies Hermes' rules for a FlagSSHSessionTokenFile
// path on a remote Unix host whose account's home is userHome: absolute,
// clean (no "." or ".." element, no doubled slash), directly in a directory
// of SSHRoot named by a valid ownership id, and named <spawn nonce>.token.
// It looks at the path only, not at the file.
func CheckSSHTokenPath(userHome, p string) error {
	root := SSHRoot(userHome)
	if !path.IsAbs(p) || path.Clean(p) != p {
		return fmt.Errorf("hermes: %s %q must be absolute and clean", FlagSSHSessionTokenFile, p)
	}
	rel, ok := strings.CutPrefix(p, root+"/")
	if !ok {
		return fmt.Errorf("hermes: %s %q is not under %s", FlagSSHSessionTokenFile, p, root)
	}
	dir, name, ok := strings.Cut(rel, "/")
	if !ok || strings.Contains(name, "/") || !ValidOwnershipID(dir) {
		return fmt.Errorf("hermes: %s %q: want %s/<32 hex>/<16 hex>.token", FlagSSHSessionTokenFile, p, root)
	}
	if nonce, ok := strings.CutSuffix(name, ".token"); !ok || !ValidSpawnNonce(nonce) {
		return fmt.Errorf("hermes: %s %q: the file's name is not <16 hex>.token", FlagSSHSessionTokenFile, p)
	}
	return nil
}

// ValidOwnershipID reports whether s can name an SSH backend's directory:
// 32 lowercase hex digits.
func ValidOwnershipID(s string) bool { return isLowerHex(s, 32) }

// ValidSpawnNonce reports whether s is a spawn nonce Hermes accepts for
// FlagSSHOwnerNonce: 16 lowercase hex digits.
func ValidSpawnNonce(s string) bool { return isLowerHex(s, 16) }

func isLowerHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
