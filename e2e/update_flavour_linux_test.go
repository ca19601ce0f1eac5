package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"hermes-desktop/backend/update"
)

// An install updates only within its WebKitGTK flavour. The headless build
// with the webkit2_41 tag is of the webkit41 flavour (backend/update's
// flavour_webkit41.go), so it stands in here for the 4.1 desktop build; the
// plain build is of none. One instance, three feeds: without its key
// nothing is offered and it says so; its key holding another flavour's
// binary fails the smoke test and changes nothing; with every key present
// it takes its own.
func TestUpdateKeepsTheFlavour(t *testing.T) {
	_, priv := updateKey()
	exe := install(t, buildTagged(t, "1.0.0", "", "webkit2_41"), update.TypePortable)
	if v := versionInfo(t, exe); v.Flavour != update.FlavourWebKit41 {
		t.Fatalf("the webkit2_41 build says %+v, want flavour webkit41", v)
	}
	own := unitArtifact(t, buildTagged(t, "1.1.0", "", "webkit2_41"))
	plain := unitArtifact(t, buildVersion(t, "1.1.0", ""))
	before, err := os.ReadFile(exe)
	must(t, err)
	f := newFeedServer(t)
	f.publishPlatforms(t, priv, "1.1.0", map[string][]byte{"linux-amd64": plain, "linux-amd64-webkit40": plain, "windows-amd64": plain})
	l, first := startInstalled(t, exe, f, "3s")

	out, _, code := l.CLI("update", "check", "--json")
	var c update.Check
	if code != 0 || json.Unmarshal([]byte(out), &c) != nil || c.Available || c.Reason != "no-build" ||
		!strings.Contains(c.Message, "linux-amd64-webkit41 (the WebKitGTK 4.1 build)") {
		t.Fatalf("update check without this flavour: exit %d %q; want no update, reason no-build, naming linux-amd64-webkit41", code, out)
	}
	if out, _, _ := l.CLI("update", "check"); !strings.Contains(out, "No update for this install (Hermes Desktop 1.0.0): version 1.1.0 has no build for linux-amd64-webkit41") {
		t.Errorf("update check says %q, want it to say there is no build for this install", out)
	}
	if f.artifactGets.Load() != 0 {
		t.Errorf("%d artifacts downloaded, want none", f.artifactGets.Load())
	}

	// This flavour's key, but a binary of none: the smoke test stops it.
	f.publishPlatforms(t, priv, "1.1.0", map[string][]byte{"linux-amd64-webkit41": plain})
	_, errOut, code := l.CLI("update", "apply")
	if code == 0 || !strings.Contains(errOut, "smoke test") || !strings.Contains(errOut, "this install is the WebKitGTK 4.1 build") {
		t.Fatalf("update apply of another flavour's binary: exit %d %q; want the smoke test to refuse it", code, errOut)
	}
	if after, _ := os.ReadFile(exe); !bytes.Equal(before, after) {
		t.Fatal("the installed file changed after a refused update")
	}

	f.publishPlatforms(t, priv, "1.1.0", map[string][]byte{"linux-amd64": plain, "linux-amd64-webkit40": plain, "linux-amd64-webkit41": own})
	if out, errOut, code := l.CLI("update", "apply"); code != 0 || !strings.Contains(out, "updated 1.0.0 -> 1.1.0") {
		t.Fatalf("update apply: exit %d\n%s%s", code, out, errOut)
	}
	if v := versionInfo(t, exe); v.Version != "1.1.0" || v.Flavour != update.FlavourWebKit41 {
		t.Errorf("the installed file says %+v, want 1.1.0 of flavour webkit41", v)
	}
	if st := status(t, l); st.Instance.Version != "1.1.0" || len(st.Backends) != 1 || st.Backends[0].PID != first.PID {
		t.Errorf("after the update: %+v, backends %+v; want 1.1.0 serving backend pid %d", st.Instance, st.Backends, first.PID)
	}
	if code, err := l.WaitExit(15e9); err != nil || code != 0 {
		t.Fatalf("the watcher: exit %d, %v", code, err)
	}
	stopSuccessor(t, l)
}
