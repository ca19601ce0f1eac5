package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"hermes-desktop/backend/update"
	"hermes-desktop/contract/errkind"
)

func TestVersionJSON(t *testing.T) {
	var out strings.Builder
	if code := Main([]string{"version", "--json"}, &out, &out, Program{Version: "1.2.3"}); code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	var v update.VersionInfo
	if err := json.Unmarshal([]byte(out.String()), &v); err != nil || v.Version != "1.2.3" {
		t.Errorf("got %q (%v), want {\"version\": \"1.2.3\"}", out.String(), err)
	}
	out.Reset()
	Main([]string{"version"}, &out, &out, Program{Version: "1.2.3"})
	if out.String() != "hermes-desktop 1.2.3\n" {
		t.Errorf("plain: got %q", out.String())
	}
}

// The apply's progress: a line per state, download lines at most twice a
// second, and the download's last figures before the next state.
func TestProgressLines(t *testing.T) {
	var out strings.Builder
	p := &progressPrinter{w: &out}
	mb := int64(1 << 20)
	steps := []update.Info{
		{State: update.StateChecking},
		{State: update.StateDownloading, Latest: "1.1.0", Bytes: 1 * mb, Total: 10 * mb, Speed: float64(2 * mb)},
		{State: update.StateDownloading, Latest: "1.1.0", Bytes: 2 * mb, Total: 10 * mb, Speed: float64(2 * mb)}, // too soon: no line
		{State: update.StateApplying, Latest: "1.1.0", Bytes: 10 * mb, Total: 10 * mb, Speed: float64(3 * mb)},
		{State: update.StateApplying, Latest: "1.1.0", Bytes: 10 * mb, Total: 10 * mb}, // unchanged: no line
	}
	for _, s := range steps {
		p.print(s)
	}
	want := []string{
		"checking the update feed",
		"downloading 1.1.0: 1.0 MiB of 10.0 MiB (10%), 2.0 MiB/s",
		"downloading 1.1.0: 10.0 MiB of 10.0 MiB (100%), 3.0 MiB/s",
		"installing 1.1.0: smoke test, swap, handing the backends over",
	}
	if got := strings.Split(strings.TrimSpace(out.String()), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", out.String(), strings.Join(want, "\n"))
	}
	out.Reset()
	p = &progressPrinter{w: &out, json: true}
	p.print(update.Info{State: update.StateDownloading, Latest: "1.1.0", Bytes: 5, Total: 10})
	var line map[string]any
	if err := json.Unmarshal([]byte(out.String()), &line); err != nil || line["percent"] != 50.0 || line["state"] != "downloading" {
		t.Errorf("json: got %q (%v)", out.String(), err)
	}
}

// A failed apply says its code once: an answer whose message already starts
// with it ("busy: a handoff is under way") is not prefixed again.
func TestFailedSaysTheCodeOnce(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{&errkind.RemoteError{Code: errkind.CodeBusy, Message: "busy: a handoff is under way"}, "hermes-desktop: update apply: busy: a handoff is under way\n"},
		{&errkind.RemoteError{Code: errkind.CodeBusy, Message: "a handoff is under way"}, "hermes-desktop: update apply: busy: a handoff is under way\n"},
	} {
		var out, stderr strings.Builder
		p := &progressPrinter{w: &out}
		if code := p.failed(tc.err, "/state", &stderr); code != ExitError {
			t.Errorf("%v: exit %d, want %d", tc.err, code, ExitError)
		}
		if stderr.String() != tc.want {
			t.Errorf("%v: got %q, want %q", tc.err, stderr.String(), tc.want)
		}
	}
}

// A build without updates says so once, not "Updates are off: updates are
// off: ..." (issue 23, item 9).
func TestPrintCheckUpdatesOffOnce(t *testing.T) {
	for _, msg := range []string{update.ErrBuildOff.Error(), "the feed is not set"} {
		var out strings.Builder
		printCheck(&out, update.Check{Reason: "disabled", Message: msg})
		if got := out.String(); strings.Count(strings.ToLower(got), "updates are off") != 1 || !strings.HasPrefix(got, "Updates are off") {
			t.Errorf("message %q: got %q, want one sentence opening with \"Updates are off\"", msg, got)
		}
	}
}

// update check says how much the update downloads: the patch and the full
// size, or the full size alone.
func TestPrintCheckSaysTheDownload(t *testing.T) {
	mb := int64(1 << 20)
	for _, tc := range []struct {
		d    *update.Download
		want string
	}{
		{&update.Download{Size: mb + mb/5, Full: 24*mb + mb/10, Patch: true}, "Hermes Desktop 1.3.0 is available (this is 1.2.0). 1.3.0: 1.2 MiB patch (full download 24.1 MiB). Install it with: hermes-desktop update apply\n"},
		{&update.Download{Size: 24*mb + mb/10, Full: 24*mb + mb/10}, "Hermes Desktop 1.3.0 is available (this is 1.2.0). 1.3.0: 24.1 MiB download. Install it with: hermes-desktop update apply\n"},
		{&update.Download{Size: 42526, Full: 12*mb + mb/5, Patch: true}, "Hermes Desktop 1.3.0 is available (this is 1.2.0). 1.3.0: 42 KiB patch (full download 12.2 MiB). Install it with: hermes-desktop update apply\n"},
	} {
		var out strings.Builder
		printCheck(&out, update.Check{Current: "1.2.0", Latest: "1.3.0", Available: true, Download: tc.d})
		if out.String() != tc.want {
			t.Errorf("got %q, want %q", out.String(), tc.want)
		}
	}
	var out strings.Builder
	p := &progressPrinter{w: &out}
	p.print(update.Info{State: update.StateDownloading, Latest: "1.3.0", Bytes: mb, Total: 2 * mb, Download: &update.Download{Size: 2 * mb, Full: 24 * mb, Patch: true}})
	if want := "downloading 1.3.0 (a patch): 1.0 MiB of 2.0 MiB (50%), 0.0 MiB/s\n"; out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}
