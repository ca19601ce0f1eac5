package lockfile

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"

	"hermes-desktop/contract/hermes"
)

// Ownership files other Hermes components write, read from disk: their
// schemas are Hermes' (contract/hermes). The boot reaper must never signal
// what they name; a file it cannot read with certainty makes it fail
// closed.

// maxForeignSize bounds the foreign files read: a larger one is malformed.
const maxForeignSize = hermes.MaxOwnershipFileSize

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

// SSHLockClaims reads every <dir>/*/backend.lock.json in dirs (see
// hermes.SSHLockDirs), each directory once even when two paths name it. A missing
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
		path := filepath.Join(dir, e.Name(), hermes.SSHLockName)
		data, err := ReadForeign(path, maxForeignSize)
		if absent(path, err) {
			continue // a directory without a lock claims nothing
		}
		c := ForeignClaim{Path: path}
		if err == nil {
			var l *hermes.SSHLock
			if l, err = hermes.ParseSSHLock(data, e.Name()); err == nil {
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

// GatewayClaims reads $HERMES_HOME/gateway.pid and gateway.lock. A missing
// or empty file claims nothing; an unreadable or malformed one is returned
// with its error, so the caller can fail closed.
func GatewayClaims(hermesHome string) []ForeignClaim {
	var claims []ForeignClaim
	for _, name := range hermes.GatewayFileNames {
		path := filepath.Join(hermesHome, name)
		data, err := ReadForeign(path, maxForeignSize)
		if absent(path, err) {
			continue
		}
		c := ForeignClaim{Path: path}
		if err == nil {
			var g *hermes.GatewayPID
			g, err = hermes.ParseGatewayPID(data)
			if errors.Is(err, hermes.ErrNoRecord) {
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
