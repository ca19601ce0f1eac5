package update

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"hermes-desktop/backend/update/delta"
)

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// patchFeed is a feed whose artifact lists patches, each served from
// /dl/patch-N with the bytes the test gives (which may not be the ones
// the manifest describes).
type patchFeed struct {
	*feed
	patchGets atomic.Int32
}

// servedPatch is one patch: what the manifest says and what is served.
type servedPatch struct {
	from   []byte // the unit it starts from
	listed []byte // the patch the manifest's sha256 and size describe
	served []byte // what the server sends
}

func newPatchFeed(t *testing.T, k testKey, version string, art []byte, patches []servedPatch, edits ...func(*Artifact)) *patchFeed {
	t.Helper()
	f := &patchFeed{feed: newFeed(t)}
	a := Artifact{URL: "dl/hermes-desktop", SHA256: sha(art), Size: int64(len(art))}
	for _, edit := range edits {
		edit(&a)
	}
	mux := f.srv.Config.Handler.(*http.ServeMux)
	for i, p := range patches {
		name := "dl/patch-" + string(rune('0'+i))
		a.Patches = append(a.Patches, Patch{From: sha(p.from), URL: name, SHA256: sha(p.listed), Size: int64(len(p.listed))})
		mux.HandleFunc("/"+name, func(w http.ResponseWriter, r *http.Request) {
			f.patchGets.Add(1)
			w.Write(p.served)
		})
	}
	m := Manifest{Version: version, Expires: expiresIn(time.Hour), Platforms: map[string]Artifact{Platform(): a}}
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	f.manifest, f.artifact, f.sig = data, art, k.sign(data, TrustedComment("stable", version, m.Expires))
	f.mu.Unlock()
	return f
}

// releases are an installed unit and the next release's: random bytes
// (nothing but the reference shrinks them) with a line changed.
func releases() (old, new []byte) {
	old = randomBytes(1 << 20)
	new = bytes.Clone(old)
	copy(new[len(new)/2:], "a one-line change")
	return old, new
}

func makePatch(t *testing.T, old, new []byte) []byte {
	t.Helper()
	p, err := delta.Make(old, new)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// patchClient is a client whose installed executable holds installed,
// logging to log.
func patchClient(t *testing.T, f *patchFeed, k testKey, installed []byte, log *bytes.Buffer) *Client {
	return New(Config{FeedURL: f.url(), Keys: []string{k.String()}, Current: "1.0.0", Dir: t.TempDir(),
		Installed: writeInstalled(t, installed), Logger: slog.New(slog.NewTextHandler(log, nil))})
}

// writeInstalled writes an installed executable holding b and returns its
// path.
func writeInstalled(t *testing.T, b []byte) string {
	t.Helper()
	exe := filepath.Join(t.TempDir(), "hermes-desktop")
	if err := os.WriteFile(exe, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return exe
}

func TestDownloadTakesThePatch(t *testing.T) {
	k := newKey(t)
	old, new := releases()
	other := randomBytes(1000)
	p := makePatch(t, old, new)
	f := newPatchFeed(t, k, "1.1.0", new, []servedPatch{
		{from: other, listed: p, served: p}, // from another release: not this install's
		{from: old, listed: p, served: p},
	})
	var log bytes.Buffer
	c := patchClient(t, f, k, old, &log)
	rel, err := check(t, c)
	if err != nil {
		t.Fatal(err)
	}
	if rel.Patch == nil || rel.Patch.From != sha(old) || rel.Patch.Size != int64(len(p)) {
		t.Fatalf("got patch %+v; want the patch from the installed unit, %d bytes", rel.Patch, len(p))
	}
	var last Progress
	path, err := c.Download(t.Context(), rel, func(pr Progress) { last = pr })
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, new) {
		t.Fatalf("got %d bytes, want the new release", len(got))
	}
	if got := f.artifactGets.Load(); got != 0 {
		t.Errorf("got %d requests for the full artifact, want 0", got)
	}
	if got := f.patchGets.Load(); got != 1 {
		t.Errorf("got %d requests for the patch, want 1", got)
	}
	if last.Total != int64(len(p)) {
		t.Errorf("progress total %d, want the patch's %d", last.Total, len(p))
	}
	if _, err := os.Stat(strings.TrimSuffix(path, ArtifactName) + PatchName); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the used patch is still there: %v", err)
	}
}

// Whatever goes wrong with a patch, the full download follows and the
// update gets its release.
func TestDownloadFallsBackFromABadPatch(t *testing.T) {
	old, new := releases()
	good := makePatch(t, old, new)
	flipped := bytes.Clone(good)
	flipped[len(flipped)/2] ^= 0xff
	elsewhere := bytes.Clone(new)
	copy(elsewhere, "another release")
	wrong := makePatch(t, old, elsewhere)
	for _, tc := range []struct {
		name  string
		patch servedPatch
		why   string
	}{
		{"corrupted on the way", servedPatch{from: old, listed: good, served: flipped}, "checksum mismatch"},
		{"signed, but makes another release", servedPatch{from: old, listed: wrong, served: wrong}, "the result is not the release"},
		{"signed, but not a patch", servedPatch{from: old, listed: flipped, served: flipped}, "the patch:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := newKey(t)
			f := newPatchFeed(t, k, "1.1.0", new, []servedPatch{tc.patch})
			var log bytes.Buffer
			c := patchClient(t, f, k, old, &log)
			path, err := download(t, c, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := os.ReadFile(path); !bytes.Equal(got, new) {
				t.Fatalf("got %d bytes, want the new release", len(got))
			}
			if a, p := f.artifactGets.Load(), f.patchGets.Load(); a != 1 || p != 1 {
				t.Errorf("got %d requests for the patch and %d for the artifact, want 1 and 1", p, a)
			}
			if !strings.Contains(log.String(), "the patch did not work") || !strings.Contains(log.String(), tc.why) {
				t.Errorf("log %q does not say the patch failed with %q", log.String(), tc.why)
			}
		})
	}
}

// An install whose unit is not one a patch starts from (a file changed by
// hand) downloads the full artifact, and says so in the check.
func TestModifiedInstallTakesTheFullArtifact(t *testing.T) {
	k := newKey(t)
	old, new := releases()
	p := makePatch(t, old, new)
	f := newPatchFeed(t, k, "1.1.0", new, []servedPatch{{from: old, listed: p, served: p}})
	modified := bytes.Clone(old)
	modified[0] ^= 1
	var log bytes.Buffer
	c := patchClient(t, f, k, modified, &log)
	rel, err := check(t, c)
	if err != nil {
		t.Fatal(err)
	}
	if rel.Patch != nil {
		t.Fatalf("got patch %+v, want none", rel.Patch)
	}
	path, err := c.Download(t.Context(), rel, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, new) {
		t.Fatalf("got %d bytes, want the new release", len(got))
	}
	if a, p := f.artifactGets.Load(), f.patchGets.Load(); a != 1 || p != 0 {
		t.Errorf("got %d requests for the patch and %d for the artifact, want 0 and 1", p, a)
	}
}

func TestValidatePatches(t *testing.T) {
	h := strings.Repeat("ab", 32)
	ok := Patch{From: h, URL: "p", SHA256: h, Size: 10}
	many := make([]Patch, MaxPatches+1)
	for i := range many {
		many[i] = ok
		many[i].From = strings.Repeat(string(rune('a'+i%6)), 63) + string(rune('0'+i/6))
	}
	for _, tc := range []struct {
		name string
		ps   []Patch
		want string // "" for valid
	}{
		{"valid", []Patch{ok}, ""},
		{"from not hex", []Patch{{From: "AB", URL: "p", SHA256: h, Size: 10}}, "from"},
		{"two from one unit", []Patch{ok, ok}, "second patch"},
		{"sha256 not hex", []Patch{{From: h, URL: "p", SHA256: h[:63], Size: 10}}, "sha256"},
		{"no size", []Patch{{From: h, URL: "p", SHA256: h}}, "size"},
		{"over the limit", []Patch{{From: h, URL: "p", SHA256: h, Size: 1 << 40}}, "limit"},
		{"no url", []Patch{{From: h, SHA256: h, Size: 10}}, "url"},
		{"bad url", []Patch{{From: h, URL: "http://[::1", SHA256: h, Size: 10}}, "url"},
		{"too many", many, "at most"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := Manifest{Version: "1.1.0", Platforms: map[string]Artifact{"linux-amd64": {URL: "a", SHA256: h, Size: 100, Patches: tc.ps}}}
			err := m.Validate(DefaultMaxArtifactSize)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("got %v, want valid", err)
				}
				return
			}
			if !errors.Is(err, ErrFeed) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want a bad feed about %q", err, tc.want)
			}
		})
	}
}

// A patch's URL follows the artifact's rules: https, or http on loopback.
func TestPatchURLMustBeSecure(t *testing.T) {
	k := newKey(t)
	old, new := releases()
	f := newPatchFeed(t, k, "1.1.0", new, nil)
	a := Artifact{URL: "dl/hermes-desktop", SHA256: sha(new), Size: int64(len(new)),
		Patches: []Patch{{From: sha(old), URL: "http://example.com/patch", SHA256: sha(old), Size: 10}}}
	m := Manifest{Version: "1.1.0", Expires: expiresIn(time.Hour), Platforms: map[string]Artifact{Platform(): a}}
	data, _ := json.Marshal(m)
	f.mu.Lock()
	f.manifest, f.sig = data, k.sign(data, TrustedComment("stable", "1.1.0", m.Expires))
	f.mu.Unlock()
	var log bytes.Buffer
	if _, err := check(t, patchClient(t, f, k, old, &log)); !errors.Is(err, ErrInsecure) {
		t.Fatalf("got %v, want %v", err, ErrInsecure)
	}
}

// The installed executable is hashed when a feed lists patches and not
// again while it keeps its size and time; changed, it is hashed again.
// A file rewritten behind the cache's back (same size and time) only
// makes the patch fail the manifest's digest: the full artifact follows.
func TestInstalledDigestFollowsTheFile(t *testing.T) {
	k := newKey(t)
	old, new := releases()
	p := makePatch(t, old, new)
	f := newPatchFeed(t, k, "1.1.0", new, []servedPatch{{from: old, listed: p, served: p}})
	var log bytes.Buffer
	c := patchClient(t, f, k, old, &log)
	exe := c.cfg.Installed
	if rel, err := check(t, c); err != nil || rel.Patch == nil {
		t.Fatalf("check: %+v %v, want a patch", rel, err)
	}
	fi, err := os.Stat(exe)
	if err != nil {
		t.Fatal(err)
	}
	modified := bytes.Clone(old)
	modified[0] ^= 1
	if err := os.WriteFile(exe, modified, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(exe, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	rel, err := check(t, c)
	if err != nil || rel.Patch == nil {
		t.Fatalf("check with the same size and time: %+v %v, want the digest kept (a patch)", rel, err)
	}
	path, err := c.Download(t.Context(), rel, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, new) || f.artifactGets.Load() != 1 {
		t.Fatalf("got %d bytes after %d full downloads; want the new release from the full artifact", len(got), f.artifactGets.Load())
	}
	later := fi.ModTime().Add(time.Second)
	if err := os.Chtimes(exe, later, later); err != nil {
		t.Fatal(err)
	}
	if rel, err := check(t, c); err != nil || rel.Patch != nil {
		t.Fatalf("check after the file changed: patch %+v, %v; want none (hashed again)", rel.Patch, err)
	}
}

// The bar is full once the patch is in, before it is applied (seconds for
// a unit): a patch that then fails to apply has still been reported whole
// before the full download's progress starts.
func TestPatchProgressIsFullBeforeApplying(t *testing.T) {
	old, new := releases()
	notAPatch := randomBytes(512 << 10) // many reads: the meter reports only the first of them
	k := newKey(t)
	f := newPatchFeed(t, k, "1.1.0", new, []servedPatch{{from: old, listed: notAPatch, served: notAPatch}})
	var log bytes.Buffer
	c := patchClient(t, f, k, old, &log)
	var seen []Progress
	if _, err := download(t, c, func(p Progress) { seen = append(seen, p) }); err != nil {
		t.Fatal(err)
	}
	for _, p := range seen {
		if p.Total == int64(len(notAPatch)) && p.Bytes == p.Total {
			return
		}
	}
	t.Fatalf("progress %+v never showed the patch's %d bytes whole", seen, len(notAPatch))
}
