package hermes

import (
	"errors"
	"strings"
	"testing"
)

func TestParseGatewayPID(t *testing.T) {
	cases := []struct {
		in   string
		pid  int
		tick bool
		want error // nil: valid
	}{
		{`{"pid":1234,"kind":"hermes-gateway","argv":["hermes","gateway"],"start_time":987,"hermes_home":"/h"}`, 1234, true, nil},
		{`{"pid":1234}`, 1234, false, nil},
		{"1234\n", 1234, false, nil},
		{`{"pid":1234,"kind":"something-else"}`, 0, false, ErrMalformed},
		{`{"pid":0}`, 0, false, ErrMalformed},
		{"-5", 0, false, ErrMalformed},
		{`{"pid":"1234"}`, 0, false, ErrMalformed},
		{"null", 0, false, ErrMalformed},
		{"x", 0, false, ErrMalformed},
		// Hermes reads an empty file as "no gateway", not as damage.
		{"", 0, false, ErrNoRecord},
		{" \n\t\r\n", 0, false, ErrNoRecord},
	}
	for _, tc := range cases {
		g, err := ParseGatewayPID([]byte(tc.in))
		if tc.want != nil {
			if !errors.Is(err, tc.want) {
				t.Errorf("%q: got %+v, %v; want %v", tc.in, g, err, tc.want)
			}
			continue
		}
		if err != nil || g.PID != tc.pid || (g.StartTime != nil) != tc.tick {
			t.Errorf("%q: got %+v, %v; want pid %d", tc.in, g, err, tc.pid)
		}
	}
}

func FuzzParseGatewayPID(f *testing.F) {
	f.Add([]byte(`{"pid":1234,"start_time":5}`))
	f.Add([]byte("42"))
	f.Add([]byte(" \n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := ParseGatewayPID(data)
		switch {
		case err == nil && (g.PID < 1 || g.PID > 4194304):
			t.Fatalf("accepted pid %d", g.PID)
		case err != nil && !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrNoRecord):
			t.Fatalf("unwrapped error %v", err)
		case errors.Is(err, ErrNoRecord) && strings.TrimSpace(string(data)) != "":
			t.Fatalf("%q is not empty, yet no record", data)
		}
	})
}
