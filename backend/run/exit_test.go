package run

import (
	"strings"
	"syscall"
	"testing"
)

func TestExitStatusString(t *testing.T) {
	cases := map[ExitStatus]string{
		{Code: 0}:                           "code 0",
		{Code: 75}:                          "port is in use",
		{Code: 127}:                         "not found",
		{Code: -1, Signal: syscall.SIGKILL}: "killed by signal 9",
		{Code: 137}:                         "killed by signal 9",
	}
	for st, want := range cases {
		if got := st.String(); !strings.Contains(got, want) {
			t.Errorf("%+v: got %q, want it to contain %q", st, got, want)
		}
	}
}
