package hermes

import "testing"

func TestIsLoopbackHost(t *testing.T) {
	for _, c := range []struct {
		host string
		want bool
	}{
		{"localhost", true},
		{"LocalHost", true},
		{"LOCALHOST", true},
		{"localhoſt", false}, // U+017F, which Unicode folds to s
		{"127.0.0.1", true},
		{"127.1.2.3", true},
		{"127.255.255.254", true},
		{"::1", true},
		{"[::1]", true},
		{"0:0:0:0:0:0:0:1", true},
		{"::ffff:127.0.0.1", true},
		{"[::ffff:127.0.0.1]", true},
		{"0.0.0.0", false},
		{"::", false},
		{"[::]", false},
		{"128.0.0.1", false},
		{"192.168.1.2", false},
		{"::ffff:192.168.1.2", false},
		{"localhost.", false},
		{"foo.localhost", false},
		{"localhost.evil", false},
		{"127.0.0.1.", false},
		{"127.1", false},
		{"0177.0.0.1", false},
		{"::1%lo", false},
		{"[::1", false},
		{"::1]", false},
		{"[localhost]", false},
		{"[127.0.0.1]", false},
		{"example.com", false},
		{"", false},
		{"[]", false},
	} {
		if got := IsLoopbackHost(c.host); got != c.want {
			t.Errorf("IsLoopbackHost(%q): got %v, want %v", c.host, got, c.want)
		}
	}
}

func TestFindLoopbackURL(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{"Dashboard running at http://127.0.0.1:9119/ (Ctrl-C to stop)", "http://127.0.0.1:9119/"},
		{`open "http://localhost:8642/chat?x=1" now`, "http://localhost:8642/chat?x=1"},
		{"listening on https://[::1]:443", "https://[::1]:443"},
		{"proxy http://example.com:80/ then http://127.0.0.2:81/x", "http://127.0.0.2:81/x"},
		{"bound http://0.0.0.0:9119/", ""},
		{"see http://localhost/ (no port)", ""},
		{"http://localhost.example.com:80/", ""},
		{"nothing here", ""},
	} {
		if got := FindLoopbackURL(c.line); got != c.want {
			t.Errorf("FindLoopbackURL(%q): got %q, want %q", c.line, got, c.want)
		}
	}
}
