package hermes

import (
	"errors"
	"strings"
	"testing"

	"hermes-desktop/contract/hermes/hermestest"
)

func TestParseSSHLock(t *testing.T) {
	repl := func(old, new string) func(string) string {
		return func(s string) string { return strings.Replace(s, old, new, 1) }
	}
	cases := []struct {
		name   string
		mutate func(string) string
		dir    string
		ok     bool
	}{
		{"valid", nil, hermestest.SSHLockID, true},
		{"no creationTime", repl(`,"creationTime":"linux:123"`, ""), hermestest.SSHLockID, true},
		{"darwin creationTime", repl(`"linux:123"`, `"darwin:Sun Nov 29 10:00:00 2026"`), hermestest.SSHLockID, true},
		{"extra field", repl(`"pid":4242`, `"pid":4242,"future":1`), hermestest.SSHLockID, true},
		{"schema 3", repl(`"schemaVersion":2`, `"schemaVersion":3`), hermestest.SSHLockID, false},
		{"protocol 2", repl(`"protocolVersion":1`, `"protocolVersion":2`), hermestest.SSHLockID, false},
		{"ownership is not the dir", nil, "fedcba9876543210fedcba9876543210", false},
		{"dir not hex", nil, "not-a-hex-id", false},
		{"pid 0", repl(`"pid":4242`, `"pid":0`), hermestest.SSHLockID, false},
		{"pid too big", repl(`"pid":4242`, `"pid":4194305`), hermestest.SSHLockID, false},
		{"pid as string", repl(`"pid":4242`, `"pid":"4242"`), hermestest.SSHLockID, false},
		{"no pid", repl(`"pid":4242,`, ""), hermestest.SSHLockID, false},
		{"port too big", repl(`"port":41000`, `"port":65536`), hermestest.SSHLockID, false},
		{"nonce uppercase", repl(`0011223344556677",`, `00112233445566AA",`), hermestest.SSHLockID, false},
		{"fingerprint short", repl(`"00112233445566778899aabbccddeeff"`, `"0011"`), hermestest.SSHLockID, false},
		{"log path elsewhere", repl(`/0011223344556677.log`, `/other.log`), hermestest.SSHLockID, false},
		{"long profile", repl(`"profile":"default"`, `"profile":"`+strings.Repeat("p", 1025)+`"`), hermestest.SSHLockID, false},
		{"bad creationTime", repl(`"linux:123"`, `"win:1"`), hermestest.SSHLockID, false},
		{"not json", func(string) string { return "{" }, hermestest.SSHLockID, false},
		{"array", func(string) string { return "[]" }, hermestest.SSHLockID, false},
	}
	for _, tc := range cases {
		l, err := ParseSSHLock(hermestest.SSHLockJSON(tc.mutate), tc.dir)
		if (err == nil) != tc.ok {
			t.Errorf("%s: got %+v, %v; want ok=%v", tc.name, l, err, tc.ok)
		}
		if err != nil && !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: error %v is not ErrMalformed", tc.name, err)
		}
	}
}

func FuzzParseSSHLock(f *testing.F) {
	f.Add(hermestest.SSHLockJSON(nil), hermestest.SSHLockID)
	f.Add([]byte(`{"schemaVersion":2}`), hermestest.SSHLockID)
	f.Fuzz(func(t *testing.T, data []byte, dir string) {
		l, err := ParseSSHLock(data, dir)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("unwrapped error %v", err)
			}
			return
		}
		if l.PID < 1 || l.OwnershipID != dir || !strings.HasSuffix(l.LogPath, l.SpawnNonce+".log") {
			t.Fatalf("accepted an invalid lock: %+v", l)
		}
	})
}
