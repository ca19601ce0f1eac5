package lockfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Ownership files other Hermes components write. The boot reaper must never
// signal what they name; a file it cannot read with certainty makes it fail
// closed.

// ErrMalformed means a foreign ownership file does not match its schema.
var ErrMalformed = errors.New("lockfile: malformed ownership file")

// ErrNoRecord means a foreign ownership file holds nothing (it is empty or
// only whitespace): to Hermes that is no record at all, so it names nobody.
var ErrNoRecord = errors.New("lockfile: empty ownership file (no record)")

const (
	maxForeignSize = 64 << 10
	maxForeignStr  = 1024
	sshDirName     = "desktop-ssh"
	hermesDirName  = ".hermes" // under the user's home
	sshLockName    = "backend.lock.json"
)

// SSHLock is a remote SSH backend's lock, desktop-ssh/<id>/backend.lock.json
// (Hermes schema version 2).
type SSHLock struct {
	SchemaVersion    int    `json:"schemaVersion"`
	ProtocolVersion  int    `json:"protocolVersion"`
	OwnershipID      string `json:"ownershipId"`
	SpawnNonce       string `json:"spawnNonce"`
	TokenFingerprint string `json:"tokenFingerprint"`
	PID              int    `json:"pid"`
	Port             int    `json:"port"`
	Profile          string `json:"profile"`
	HermesPath       string `json:"hermesPath"`
	HermesHome       string `json:"hermesHome"`
	LogPath          string `json:"logPath"`
	StartedAt        string `json:"startedAt"`
	CreationTime     string `json:"creationTime,omitempty"`
}

// creationTimeRE is compiled on first use, not at init: every process of
// this binary (the watchdog shim first, whose start is timed) would pay for
// it otherwise.
var creationTimeRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(linux:[0-9]+|darwin:[^\x00-\x1f]+)$`)
})

// ParseSSHLock decodes and validates an SSH lock found in directory dirID.
// Every field the schema names is required, with the types and bounds
// Hermes writes; anything else is ErrMalformed.
func ParseSSHLock(data []byte, dirID string) (*SSHLock, error) {
	if len(data) > maxForeignSize {
		return nil, fmt.Errorf("%w: over %d bytes", ErrMalformed, maxForeignSize)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	for _, k := range []string{"schemaVersion", "protocolVersion", "ownershipId", "spawnNonce", "tokenFingerprint",
		"pid", "port", "profile", "hermesPath", "hermesHome", "logPath", "startedAt"} {
		if _, ok := raw[k]; !ok {
			return nil, fmt.Errorf("%w: no %s", ErrMalformed, k)
		}
	}
	var l SSHLock
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&l); err != nil {
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
	case !isLowerHex(dirID, 32):
		return fmt.Errorf("directory %q is not 32 lowercase hex digits", dirID)
	case l.OwnershipID != dirID:
		return fmt.Errorf("ownershipId %q is not the directory name", l.OwnershipID)
	case !isLowerHex(l.SpawnNonce, 16):
		return fmt.Errorf("spawnNonce %q", l.SpawnNonce)
	case !isLowerHex(l.TokenFingerprint, 32):
		return fmt.Errorf("tokenFingerprint %q", l.TokenFingerprint)
	case l.PID < 1 || l.PID > 4194304:
		return fmt.Errorf("pid %d", l.PID)
	case l.Port < 0 || l.Port > 65535:
		return fmt.Errorf("port %d", l.Port)
	case l.CreationTime != "" && !creationTimeRE().MatchString(l.CreationTime):
		return fmt.Errorf("creationTime %q", l.CreationTime)
	}
	for name, v := range map[string]string{"profile": l.Profile, "hermesPath": l.HermesPath, "hermesHome": l.HermesHome,
		"logPath": l.LogPath, "startedAt": l.StartedAt, "creationTime": l.CreationTime} {
		if len(v) > maxForeignStr {
			return fmt.Errorf("%s is over %d bytes", name, maxForeignStr)
		}
	}
	if !strings.HasSuffix(l.LogPath, "/"+dirID+"/"+l.SpawnNonce+".log") {
		return fmt.Errorf("logPath %q does not end in /%s/%s.log", l.LogPath, dirID, l.SpawnNonce)
	}
	return nil
}

// ForeignClaim is one ownership file found on disk: the PID it names, or
// why it could not be trusted.
type ForeignClaim struct {
	Path string
	PID  int // the PID claimed; for a malformed file, a PID read loosely, or 0
	// StartTicks is the Linux start time the file records (0: none), so a
	// claim on a recycled PID can be told apart.
	StartTicks uint64
	// CreationTime is an SSH lock's creationTime marker ("" when absent).
	CreationTime string
	Err          error // nil when the file is valid
}

// SSHLockDirs returns the directories SSH locks may be in: $HERMES_HOME/
// desktop-ssh, and ~/.hermes/desktop-ssh, where Hermes Desktop writes them
// whatever HERMES_HOME is. userHome "" leaves the second out.
func SSHLockDirs(hermesHome, userHome string) []string {
	dirs := []string{filepath.Join(hermesHome, sshDirName)}
	if userHome != "" {
		dirs = append(dirs, filepath.Join(userHome, hermesDirName, sshDirName))
	}
	return dirs
}

// SSHLockClaims reads every <dir>/*/backend.lock.json in dirs (see
// SSHLockDirs), each directory once even when two paths name it. A missing
// directory claims nothing; one that is not a directory, or sits under a
// file, is not missing (see absent). One that cannot be listed makes the
// error non-nil (the caller must fail closed), but the claims of the others
// are still returned: each can spare the PIDs it names.
func SSHLockClaims(dirs ...string) ([]ForeignClaim, error) {
	var claims []ForeignClaim
	var errs []error
	var seen []os.FileInfo
	for _, dir := range dirs {
		fi, err := os.Stat(dir)
		if absent(dir, err) {
			continue
		}
		if err == nil && slices.ContainsFunc(seen, func(s os.FileInfo) bool { return os.SameFile(s, fi) }) {
			continue // HERMES_HOME is ~/.hermes (or a link to it): read once
		}
		if err == nil {
			seen = append(seen, fi)
		}
		found, err := sshLockClaimsIn(dir)
		if err != nil {
			errs = append(errs, err)
		}
		claims = append(claims, found...)
	}
	return claims, errors.Join(errs...)
}

// sshLockClaimsIn reads the locks of one desktop-ssh directory.
func sshLockClaimsIn(dir string) ([]ForeignClaim, error) {
	entries, err := os.ReadDir(dir)
	if absent(dir, err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("lockfile: list %s: %w", dir, err)
	}
	var claims []ForeignClaim
	for _, e := range entries {
		path := filepath.Join(dir, e.Name(), sshLockName)
		data, err := ReadForeign(path, maxForeignSize)
		if absent(path, err) {
			continue // a directory without a lock claims nothing
		}
		c := ForeignClaim{Path: path}
		if err == nil {
			var l *SSHLock
			if l, err = ParseSSHLock(data, e.Name()); err == nil {
				c.PID, c.CreationTime = l.PID, l.CreationTime
			}
		}
		if err != nil {
			c.Err, c.PID = err, loosePID(data)
		}
		claims = append(claims, c)
	}
	return claims, nil
}

// GatewayPID is the gateway's PID file, $HERMES_HOME/gateway.pid (or
// gateway.lock): a JSON object, or a bare integer in legacy files.
type GatewayPID struct {
	PID        int      `json:"pid"`
	Kind       string   `json:"kind"`
	Argv       []string `json:"argv"`
	StartTime  *uint64  `json:"start_time"`
	HermesHome string   `json:"hermes_home"`
}

// ParseGatewayPID decodes a gateway PID file. An empty or whitespace-only
// file is ErrNoRecord (Hermes reads it as "no gateway"); anything else that
// is not a valid record is ErrMalformed.
func ParseGatewayPID(data []byte) (*GatewayPID, error) {
	trimmed := strings.TrimSpace(string(data))
	if trimmed == "" {
		return nil, ErrNoRecord
	}
	if n, err := strconv.Atoi(trimmed); err == nil {
		if n < 1 || n > 4194304 {
			return nil, fmt.Errorf("%w: pid %d", ErrMalformed, n)
		}
		return &GatewayPID{PID: n}, nil
	}
	var g GatewayPID
	if err := json.Unmarshal(data, &g); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if g.PID < 1 || g.PID > 4194304 {
		return nil, fmt.Errorf("%w: pid %d", ErrMalformed, g.PID)
	}
	if g.Kind != "" && g.Kind != "hermes-gateway" {
		return nil, fmt.Errorf("%w: kind %q", ErrMalformed, g.Kind)
	}
	return &g, nil
}

// GatewayClaims reads $HERMES_HOME/gateway.pid and gateway.lock. A missing
// or empty file claims nothing; an unreadable or malformed one is returned
// with its error, so the caller can fail closed.
func GatewayClaims(hermesHome string) []ForeignClaim {
	var claims []ForeignClaim
	for _, name := range []string{"gateway.pid", "gateway.lock"} {
		path := filepath.Join(hermesHome, name)
		data, err := ReadForeign(path, maxForeignSize)
		if absent(path, err) {
			continue
		}
		c := ForeignClaim{Path: path}
		if err == nil {
			var g *GatewayPID
			g, err = ParseGatewayPID(data)
			if errors.Is(err, ErrNoRecord) {
				continue // Hermes' own reading: an empty file is no record
			}
			if err == nil {
				c.PID = g.PID
				if g.StartTime != nil {
					c.StartTicks = *g.StartTime
				}
			}
		}
		if err != nil {
			c.Err, c.PID = err, loosePID(data)
		}
		claims = append(claims, c)
	}
	return claims
}

// loosePID digs a PID out of a file that failed validation, so the reaper
// can at least spare that process by name. 0 when there is none.
func loosePID(data []byte) int {
	var v struct {
		PID json.Number `json:"pid"`
	}
	if json.Unmarshal(data, &v) == nil {
		if n, err := strconv.Atoi(v.PID.String()); err == nil && n > 0 {
			return n
		}
	}
	if m := regexp.MustCompile(`"pid"\s*:\s*"?([0-9]{1,7})`).FindSubmatch(data); m != nil {
		n, _ := strconv.Atoi(string(m[1]))
		return n
	}
	return 0
}
