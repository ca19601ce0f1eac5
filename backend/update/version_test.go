package update

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Whatever the feed says, the download directory is under Dir and the
// .deb hint carries no shell words.
func TestVersionReachesNoPathOrShell(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "state", "updates")
	c := New(Config{Dir: dir})
	for _, bad := range []string{"9.9.9+/../../victim", "1.2.3+;curl${IFS}x|sh"} {
		if got, err := c.versionDir(bad); err == nil {
			t.Errorf("versionDir(%q): got %s, want an error", bad, got)
		}
		if cmd := (Install{Manager: "dpkg"}).UpdateCommand(bad); strings.ContainsAny(cmd, ";|$") || strings.Contains(cmd, "victim") {
			t.Errorf("UpdateCommand(%q): got %q, want no part of the version in it", bad, cmd)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "state", "victim")); err == nil {
		t.Error("versionDir made a directory outside Dir")
	}
	got, err := c.versionDir("v1.2.3+b.1")
	if want := filepath.Join(dir, "1.2.3+b.1"); err != nil || got != want {
		t.Errorf("versionDir(v1.2.3+b.1): got %s, %v, want %s", got, err, want)
	}
}
