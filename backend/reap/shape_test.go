package reap

import (
	"reflect"
	"testing"
	"time"

	"hermes-desktop/watchdog"
)

func TestParseShape(t *testing.T) {
	cases := []struct {
		name      string
		argv      []string
		sub       string
		host      string
		ephemeral bool
		loopback  bool
	}{
		{"hermes", []string{"hermes", "serve", "--host", "127.0.0.1", "--port", "0"}, "serve", "127.0.0.1", true, true},
		{"equals form", []string{"hermes", "serve", "--host=::1", "--port=0"}, "serve", "::1", true, true},
		{"python module", []string{"/usr/bin/python3", "-m", "hermes_cli.main", "serve", "--port", "0", "--host", "localhost"}, "serve", "localhost", true, true},
		{"profile before", []string{"/venv/bin/hermes", "--profile", "x", "serve", "--host", "127.0.0.1", "--port", "0"}, "serve", "127.0.0.1", true, true},
		{"dashboard", []string{"hermes", "dashboard", "--host", "127.0.0.2", "--port", "0"}, "dashboard", "127.0.0.2", true, true},
		{"fixed port", []string{"hermes", "serve", "--host", "127.0.0.1", "--port", "9119"}, "serve", "127.0.0.1", false, true},
		{"all interfaces", []string{"hermes", "serve", "--host", "0.0.0.0", "--port", "0"}, "serve", "0.0.0.0", true, false},
		{"last flag wins", []string{"hermes", "serve", "--port", "0", "--port", "8080", "--host", "127.0.0.1"}, "serve", "127.0.0.1", false, true},
		{"no port", []string{"hermes", "serve", "--host", "127.0.0.1"}, "serve", "127.0.0.1", false, true},
		{"bad port", []string{"hermes", "serve", "--host", "127.0.0.1", "--port", "zero"}, "serve", "127.0.0.1", false, true},
		{"flag without value", []string{"hermes", "serve", "--host"}, "serve", "", false, false},
		{"not serve", []string{"hermes", "chat", "--host", "127.0.0.1", "--port", "0"}, "", "", false, false},
		{"serve as argv0 only", []string{"serve"}, "", "", false, false},
		{"empty", nil, "", "", false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := ParseShape(tc.argv)
			if s.Subcommand != tc.sub || s.Host != tc.host || s.Ephemeral() != tc.ephemeral || s.Loopback() != tc.loopback {
				t.Errorf("got %+v (ephemeral %v, loopback %v), want sub %q host %q ephemeral %v loopback %v",
					s, s.Ephemeral(), s.Loopback(), tc.sub, tc.host, tc.ephemeral, tc.loopback)
			}
		})
	}
}

func TestParseShapeWatchdog(t *testing.T) {
	s := ParseShape([]string{"/opt/hermes-desktop", "watchdog", "--nonce", "x", "--", "hermes", "serve", "--host", "127.0.0.1", "--port", "0"})
	if s.Subcommand != "watchdog" || s.Wrapped == nil || !s.Wrapped.Ephemeral() || !s.Wrapped.Loopback() {
		t.Errorf("got %+v wrapped %+v", s, s.Wrapped)
	}
	core := ParseShape([]string{"/home/u/.local/state/hermes-desktop/core/hermes-desktop-core-0123456789abcdef", "watchdog", "--", "hermes", "serve", "--host", "127.0.0.1", "--port", "0"})
	if core.Subcommand != "watchdog" || core.Wrapped == nil || !core.Wrapped.Ephemeral() {
		t.Errorf("a shim started from the desktop build's core: got %+v wrapped %+v", core, core.Wrapped)
	}
	for _, other := range []string{"/usr/bin/other", "/tmp/hermes-desktop-core-evil", "/tmp/hermes-desktop-core-0123456789ABCDEF", "/tmp/hermes-desktop-core-0123456789abcdef0"} {
		if s := ParseShape([]string{other, "watchdog", "--", "x"}); s.Subcommand != "" {
			t.Errorf("another program's watchdog subcommand (%s) was taken for ours: %+v", other, s)
		}
	}
}

// TestParseShapeShimCommand reads the command line the launcher builds: the
// reaper must see the backend it wraps, whatever the shim's flag values.
func TestParseShapeShimCommand(t *testing.T) {
	backend := []string{"hermes", "serve", "--host", "127.0.0.1", "--port", "0"}
	argv := watchdog.ShimCommand("/opt/hermes-desktop", watchdog.ShimOptions{
		Lifeline: watchdog.LifelineFD, Report: watchdog.ReportFD,
		Parent: watchdog.Parent{PID: 4242, Start: "linux:1", Nonce: "--"},
		Grace:  time.Second, Argv: backend,
	})
	s := ParseShape(argv)
	want := ParseShape(backend)
	if s.Subcommand != watchdog.Subcommand || s.Wrapped == nil || !reflect.DeepEqual(*s.Wrapped, want) {
		t.Errorf("ParseShape(%q): got %+v wrapped %+v, want %s wrapping %+v", argv, s, s.Wrapped, watchdog.Subcommand, want)
	}
}

func FuzzParseShape(f *testing.F) {
	f.Add("hermes\x00serve\x00--host\x00127.0.0.1\x00--port\x000")
	f.Add("hermes-desktop\x00watchdog\x00--\x00hermes\x00serve\x00--port=0")
	f.Fuzz(func(t *testing.T, joined string) {
		argv := splitNUL(joined)
		s := ParseShape(argv)
		if s.Ephemeral() && s.Port != 0 {
			t.Fatalf("ephemeral with port %d", s.Port)
		}
		if s.Loopback() && !IsLoopbackHost(s.Host) {
			t.Fatal("loopback disagrees with IsLoopbackHost")
		}
	})
}

func splitNUL(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

func TestIsLoopbackHost(t *testing.T) {
	for host, want := range map[string]bool{
		"127.0.0.1": true, "127.1.2.3": true, "::1": true, "[::1]": true, "localhost": true, "LOCALHOST": true,
		"0.0.0.0": false, "::": false, "192.168.1.2": false, "example.com": false, "": false, "localhost.evil": false,
	} {
		if got := IsLoopbackHost(host); got != want {
			t.Errorf("IsLoopbackHost(%q): got %v, want %v", host, got, want)
		}
	}
}
