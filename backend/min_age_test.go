package backend

import (
	"encoding/json"
	"hermes-desktop/backend/control/protocol"
	"strings"
	"testing"
	"time"
)

// TestConfigMinOrphanAge: unset is the default, an explicit 0 is no
// minimum (run --min-orphan-age 0s), negative is refused.
func TestConfigMinOrphanAge(t *testing.T) {
	cases := []struct {
		name string
		in   *time.Duration
		want string // "error" when applyDefaults must fail
	}{
		{"unset", nil, "3m0s"},
		{"explicit 0: no minimum", new(time.Duration(0)), "0s"},
		{"explicit 10s", new(10 * time.Second), "10s"},
		{"negative", new(-time.Second), "error"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{StateDir: t.TempDir(), HermesHome: t.TempDir(), Self: "/bin/false", MinOrphanAge: tc.in}
			err := cfg.applyDefaults()
			got := "error"
			if err == nil {
				got = cfg.MinOrphanAge.String()
			}
			if got != tc.want {
				t.Errorf("got %s (%v), want %s", got, err, tc.want)
			}
		})
	}
}

// TestReapArgsMinAge: on the wire, an absent min_age_ns means the
// configured age and 0 means no minimum; the two must not collapse.
func TestReapArgsMinAge(t *testing.T) {
	cases := []struct {
		wire string
		want string // "configured" for nil
	}{
		{`{"dry_run":true}`, "configured"},
		{`{"min_age_ns":0}`, "0s"},
		{`{"min_age_ns":5000000000}`, "5s"},
	}
	for _, tc := range cases {
		var a protocol.ReapArgs
		if err := json.Unmarshal([]byte(tc.wire), &a); err != nil {
			t.Fatal(err)
		}
		got := "configured"
		if d := a.MinAgeDuration(); d != nil {
			got = d.String()
		}
		if got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.wire, got, tc.want)
		}
	}
	for _, tc := range []struct {
		args protocol.ReapArgs
		want string
	}{
		{protocol.ReapArgs{}, `{"dry_run":false}`},
		{protocol.ReapArgs{MinAge: new(int64(0))}, `"min_age_ns":0`},
	} {
		data, err := json.Marshal(tc.args)
		if err != nil || !strings.Contains(string(data), tc.want) {
			t.Errorf("%+v: got %s (%v), want it to contain %s", tc.args, data, err, tc.want)
		}
	}
}
