package settings

import (
	"strings"
	"testing"
)

// TestValidateHost: what an ssh destination or a WSL host can be is
// accepted; anything a shell (ssh's ProxyCommand) or ssh's option parser
// could misread is refused, with the character named.
func TestValidateHost(t *testing.T) {
	for _, host := range []string{
		"", "example.com", "host", "my_alias", "web-1.internal", "alice@example.com", "a.b-c_d@host",
		"user@domain.example@host", "MACHINE$@host", "alice+ops@host", "192.0.2.7", "bob@192.0.2.7",
		"::1", "fe80::1%eth0", "root@2001:db8::1",
		"ssh://example.com", "ssh://alice@example.com:2222", "ssh://192.0.2.7:22", "ssh://[::1]:2222",
		"ssh://bob@[2001:db8::1]:65535", "ssh://[::1]", "ssh://alias",
		"wsl:", "wsl:Ubuntu", "wsl:Ubuntu-22.04", "wsl:_x",
		strings.Repeat("a", 255),
	} {
		if err := ValidateHost(host); err != nil {
			t.Errorf("ValidateHost(%q): got %v, want nil", host, err)
		}
	}
	for _, tc := range []struct{ host, says string }{
		{"a;b", "';'"},
		{"$(id)", "'('"},
		{"host$(id)", "'('"},
		{"`id`", "'`'"},
		{"'host'", `'\''`},
		{`"host"`, `'"'`},
		{"a b", "' '"},
		{"host\n", `'\n'`},
		{"host\x00", `'\x00'`},
		{"ho\tst", `'\t'`},
		{"h\x7f", `'\x7f'`},
		{"-oProxyCommand=x", "'-'"},
		{"alice@-host", "'-'"},
		{"-alice@host", "'-'"},
		{"ssh://-host", "'-'"},
		{strings.Repeat("a", 256), "255 bytes"},
		{"$HOME", "'$'"},
		{"host|x", "'|'"},
		{"host&", "'&'"},
		{"a>b", "'>'"},
		{"ho~st", "'~'"},
		{"hôst", "'ô'"},
		{"host:22", "ssh://host:PORT"},
		{"[::1]:22", "ssh://"},
		{"ssh://host:0", "port"},
		{"ssh://host:65536", "port"},
		{"ssh://host:", "port"},
		{"ssh://host:+22", "port"},
		{"ssh://[::1]22", "':'"},
		{"ssh://[host]:22", "not an IPv6 address"},
		{"ssh://[::1", "']'"},
		{"ssh://::1", "brackets"},
		{"ssh://host/path", "'/'"},
		{"ssh://", "no host"},
		{"alice@", "no host"},
		{"@host", "empty user"},
		{"al$ce@host", "'$'"},
		{"fe80::1%", "':'"},
		{"fe80::1%a+b", "network interface"},
		{"wsl:-bad", "WSL distribution"},
		{"wsl:bad name", "' '"},
		{"wsl:a:b", "WSL distribution"},
	} {
		err := ValidateHost(tc.host)
		if err == nil || !strings.Contains(err.Error(), tc.says) || !strings.HasPrefix(err.Error(), Labels["host"]+": ") {
			t.Errorf("ValidateHost(%q): got %v, want an error of the host saying %s", tc.host, err, tc.says)
		}
	}
}
