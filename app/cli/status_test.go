package cli

import (
	"strings"
	"testing"
	"time"

	"hermes-desktop/backend/model"
	"hermes-desktop/backend/settings"
)

// TestPrintStatusRemote: a remote backend's row names its host, and a line
// under the table says how its connection is, counted against now.
func TestPrintStatusRemote(t *testing.T) {
	now := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	next := now.Add(7600 * time.Millisecond)
	local := model.BackendStatus{Name: "hermes", Kind: settings.KindDashboard, State: model.StateReady, PID: 4100, Port: 43817, PageURL: "http://127.0.0.1:43817/"}
	for _, tc := range []struct {
		name   string
		remote *model.RemoteStatus
		want   string
	}{
		{"connected", &model.RemoteStatus{Connection: "connected", Platform: "linux/arm64", Port: 8642, LatencyMS: 12.3},
			"far: on me@build-box, connected (linux/arm64), remote pid 1234, remote port 8642 forwarded to 43901, latency 12ms\n"},
		{"reconnecting", &model.RemoteStatus{Connection: "reconnecting", Attempt: 3, NextAttempt: &next, Port: 8642, LatencyMS: 12, Error: "connection reset"},
			"far: on me@build-box, reconnecting (attempt 3, next in 8s): connection reset, remote pid 1234, remote port 8642 forwarded to 43901\n"},
		{"attempt under way", &model.RemoteStatus{Connection: "reconnecting", Attempt: 4, NextAttempt: &now},
			"far: on me@build-box, reconnecting (attempt 4), remote pid 1234\n"},
		{"failed", &model.RemoteStatus{Connection: "failed", Error: "Host key verification failed."},
			"far: on me@build-box, failed: Host key verification failed., remote pid 1234\n"},
		{"not connected", nil, "far: on me@build-box, not connected\n"},
		// Stopped here, the remote port is no longer forwarded anywhere.
		{"not forwarded", &model.RemoteStatus{Connection: "connected", Port: 8642}, "far: on me@build-box, connected, remote pid 1234, remote port 8642, not forwarded\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			far := model.BackendStatus{Name: "far", Kind: settings.KindServe, State: model.StateReady, PID: 1234, Port: 43901,
				URL: "http://127.0.0.1:43901/", Host: "me@build-box", Remote: tc.remote}
			if tc.name == "not forwarded" {
				far.Port = 0
			}
			var out strings.Builder
			printStatus(&out, model.Status{Backends: []model.BackendStatus{local, far}}, now)
			lines := strings.Split(out.String(), "\n")
			if got := strings.Fields(lines[1]); strings.Join(got, " ") != "BACKEND KIND STATE HOST PID PORT PAGE RESTARTS" {
				t.Errorf("header: got %q, want a HOST column", lines[1])
			}
			if got := strings.Fields(lines[2]); len(got) < 4 || got[3] != "-" {
				t.Errorf("local row: got %q, want HOST -", lines[2])
			}
			if got := strings.Fields(lines[3]); len(got) < 5 || got[3] != "me@build-box" || got[4] != "remote:1234" {
				// Marked: a bare 1234 killed here would hit a local process.
				t.Errorf("remote row: got %q, want its host, then its PID marked remote:", lines[3])
			}
			if !strings.HasSuffix(out.String(), tc.want) {
				t.Errorf("got\n%s\nwant it to end with %q", out.String(), tc.want)
			}
		})
	}
}

// TestPrintStatusLocalOnly: without a remote backend the table has no HOST
// column, as before remote backends.
func TestPrintStatusLocalOnly(t *testing.T) {
	var out strings.Builder
	b := model.BackendStatus{Name: "api", Kind: settings.KindServe, State: model.StateReady, PID: 7, Port: 9, URL: "http://127.0.0.1:9/"}
	printStatus(&out, model.Status{Backends: []model.BackendStatus{b}}, time.Now())
	lines := strings.Split(out.String(), "\n")
	if got := strings.Join(strings.Fields(lines[1]), " "); got != "BACKEND KIND STATE PID PORT PAGE RESTARTS" {
		t.Errorf("header: got %q, want no HOST column", got)
	}
	if got := strings.Join(strings.Fields(lines[2]), " "); got != "api serve ready 7 9 API only: http://127.0.0.1:9/ 0" {
		t.Errorf("row: got %q", got)
	}
}
