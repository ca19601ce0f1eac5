package update

import (
	"encoding/json"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestPlatformKeys(t *testing.T) {
	cases := []struct{ goos, goarch, flavour, key string }{
		{"linux", "amd64", FlavourWebKit41, "linux-amd64-webkit41"},
		{"linux", "amd64", FlavourWebKit40, "linux-amd64-webkit40"},
		{"linux", "amd64", "", "linux-amd64"},
		{"windows", "amd64", "", "windows-amd64"},
	}
	for _, tc := range cases {
		key := PlatformOf(tc.goos, tc.goarch, tc.flavour)
		if key != tc.key || PlatformFlavour(key) != tc.flavour {
			t.Errorf("PlatformOf(%s, %s, %q): got %s (flavour %q), want %s", tc.goos, tc.goarch, tc.flavour, key, PlatformFlavour(key), tc.key)
		}
		if !platformPattern.MatchString(key) {
			t.Errorf("%s: the manifest would refuse its own key", key)
		}
	}
	// The test binary is built without the desktop and webkit2_41 tags.
	if Flavour != "" || Platform() != runtime.GOOS+"-"+runtime.GOARCH {
		t.Errorf("a build without the desktop tag: got flavour %q, platform %s", Flavour, Platform())
	}
}

// flavouredManifest publishes version with an artifact per key, each
// distinguishable by its URL.
func flavouredManifest(t *testing.T, f *feed, k testKey, version string, keys ...string) {
	t.Helper()
	m := Manifest{Version: version, Expires: expiresIn(time.Hour), Platforms: map[string]Artifact{}}
	for _, key := range keys {
		m.Platforms[key] = Artifact{URL: "dl/" + key, SHA256: strings.Repeat("a", 64), Size: 10}
	}
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.manifest, f.sig = data, k.sign(data, TrustedComment("stable", version, m.Expires))
}

// An install takes the artifact of its own flavour among all of them, and
// a feed without it offers nothing, saying why.
func TestCheckTakesItsFlavour(t *testing.T) {
	k := newKey(t)
	all := []string{"linux-amd64", "linux-amd64-webkit40", "linux-amd64-webkit41", "windows-amd64"}
	for _, platform := range []string{"linux-amd64-webkit41", "linux-amd64-webkit40"} {
		f := newFeed(t)
		flavouredManifest(t, f, k, "1.1.0", all...)
		c := New(Config{FeedURL: f.url(), Keys: []string{k.String()}, Current: "1.0.0", Dir: t.TempDir(), Platform: platform})
		rel, err := check(t, c)
		if err != nil {
			t.Fatalf("%s: got %v, want a release", platform, err)
		}
		if want := f.srv.URL + "/dl/" + platform; rel.Artifact.URL != want {
			t.Errorf("%s: got the artifact %s, want %s", platform, rel.Artifact.URL, want)
		}
	}

	f := newFeed(t)
	flavouredManifest(t, f, k, "1.1.0", "linux-amd64", "linux-amd64-webkit40", "windows-amd64")
	c := New(Config{FeedURL: f.url(), Keys: []string{k.String()}, Current: "1.0.0", Dir: t.TempDir(), Platform: "linux-amd64-webkit41"})
	rel, err := check(t, c)
	if !errors.Is(err, ErrNoBuild) || !errors.Is(err, ErrUpToDate) || Reason(err) != "no-build" {
		t.Fatalf("a feed without webkit41: got %v (reason %q), want ErrNoBuild (an ErrUpToDate)", err, Reason(err))
	}
	for _, words := range []string{"1.1.0", "linux-amd64-webkit41", "WebKitGTK 4.1", "linux-amd64-webkit40"} {
		if !strings.Contains(err.Error(), words) {
			t.Errorf("the error %q does not say %q", err, words)
		}
	}
	if rel == nil || rel.Version != "1.1.0" || rel.Artifact.URL != "" {
		t.Errorf("got the release %+v, want 1.1.0 named with no artifact", rel)
	}
	if (Check{Reason: Reason(err)}).Failed() {
		t.Error("no build for this install is an answer, not a failed check")
	}
}
