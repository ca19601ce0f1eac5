package ssh

import (
	"errors"
	"strings"
	"testing"
)

func TestClassifyNameResolution(t *testing.T) {
	cases := []struct {
		stderr    string
		want      error
		permanent bool
	}{
		{`ssh: Could not resolve hostname h\303\264st.\344\276\213: Name or service not known`, ErrUnresolvable, true},
		{"ssh: Could not resolve hostname box.example: nodename nor servname provided, or not known", ErrUnresolvable, true},
		// Offline: the resolver could not ask; the next attempt may work.
		{"ssh: Could not resolve hostname box.example: Temporary failure in name resolution", ErrUnreachable, false},
		{"ssh: connect to host 127.0.0.1 port 1: Connection refused", ErrUnreachable, false},
	}
	for _, tc := range cases {
		err := classify(tc.stderr)
		if !errors.Is(err, tc.want) || Permanent(err) != tc.permanent {
			t.Errorf("classify(%q) = %v (permanent %v), want %v (permanent %v)", tc.stderr, err, Permanent(err), tc.want, tc.permanent)
		}
	}
	if err := classify(cases[0].stderr); !strings.Contains(err.Error(), "hôst.例") {
		t.Errorf("the host name is shown as ssh escaped it: %v", err)
	}
}

func TestUnvis(t *testing.T) {
	for in, want := range map[string]string{
		`h\303\264st`:         "hôst",
		`plain`:               "plain",
		`C:\path\to`:          `C:\path\to`,
		`\377 not utf-8`:      `\377 not utf-8`, // left as ssh wrote it
		`trailing \30`:        `trailing \30`,
		`\344\276\213 at end`: "例 at end",
	} {
		if got := unvis(in); got != want {
			t.Errorf("unvis(%q) = %q, want %q", in, got, want)
		}
	}
}
