package ssh_test

import (
	"errors"
	"testing"

	"hermes-desktop/backend/ssh"
)

// Windows' OpenSSH has no ControlMaster: New says so rather than letting
// every command authenticate on its own.
func TestNewWithoutMultiplexing(t *testing.T) {
	_, err := ssh.New(ssh.Options{Destination: "host", ControlDir: t.TempDir()})
	if !errors.Is(err, ssh.ErrNoMultiplexing) {
		t.Errorf("New: got %v, want ErrNoMultiplexing", err)
	}
}
