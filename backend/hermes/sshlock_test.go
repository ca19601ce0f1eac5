package hermes

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

const sshID = "0123456789abcdef0123456789abcdef"

func sshLockJSON(mutate func(string) string) []byte {
	s := fmt.Sprintf(`{"schemaVersion":2,"protocolVersion":1,"ownershipId":%q,"spawnNonce":"0011223344556677",
"tokenFingerprint":"00112233445566778899aabbccddeeff","pid":4242,"port":41000,"profile":"default",
"hermesPath":"/usr/bin/hermes","hermesHome":"/home/u/.hermes",
"logPath":"/home/u/.hermes/desktop-ssh/%s/0011223344556677.log","startedAt":"2026-11-29T10:00:00Z","creationTime":"linux:123"}`, sshID, sshID)
	if mutate != nil {
		s = mutate(s)
	}
	return []byte(s)
}

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
		{"valid", nil, sshID, true},
		{"no creationTime", repl(`,"creationTime":"linux:123"`, ""), sshID, true},
		{"darwin creationTime", repl(`"linux:123"`, `"darwin:Sun Nov 29 10:00:00 2026"`), sshID, true},
		{"extra field", repl(`"pid":4242`, `"pid":4242,"future":1`), sshID, true},
		{"schema 3", repl(`"schemaVersion":2`, `"schemaVersion":3`), sshID, false},
		{"protocol 2", repl(`"protocolVersion":1`, `"protocolVersion":2`), sshID, false},
		{"ownership is not the dir", nil, "fedcba9876543210fedcba9876543210", false},
		{"dir not hex", nil, "not-a-hex-id", false},
		{"pid 0", repl(`"pid":4242`, `"pid":0`), sshID, false},
		{"pid too big", repl(`"pid":4242`, `"pid":4194305`), sshID, false},
		{"pid as string", repl(`"pid":4242`, `"pid":"4242"`), sshID, false},
		{"no pid", repl(`"pid":4242,`, ""), sshID, false},
		{"port too big", repl(`"port":41000`, `"port":65536`), sshID, false},
		{"nonce uppercase", repl(`0011223344556677",`, `00112233445566AA",`), sshID, false},
		{"fingerprint short", repl(`"00112233445566778899aabbccddeeff"`, `"0011"`), sshID, false},
		{"log path elsewhere", repl(`/0011223344556677.log`, `/other.log`), sshID, false},
		{"long profile", repl(`"profile":"default"`, `"profile":"`+strings.Repeat("p", 1025)+`"`), sshID, false},
		{"bad creationTime", repl(`"linux:123"`, `"win:1"`), sshID, false},
		{"not json", func(string) string { return "{" }, sshID, false},
		{"array", func(string) string { return "[]" }, sshID, false},
	}
	for _, tc := range cases {
		l, err := ParseSSHLock(sshLockJSON(tc.mutate), tc.dir)
		if (err == nil) != tc.ok {
			t.Errorf("%s: got %+v, %v; want ok=%v", tc.name, l, err, tc.ok)
		}
		if err != nil && !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: error %v is not ErrMalformed", tc.name, err)
		}
	}
}

func FuzzParseSSHLock(f *testing.F) {
	f.Add(sshLockJSON(nil), sshID)
	f.Add([]byte(`{"schemaVersion":2}`), sshID)
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
