package update

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hermes-desktop/backend/update/unit"
)

// unitPair is an installed unit of 1.0.0 and the unit of 1.1.0, a
// one-line change of its executable and new cores, with the artifact of
// 1.1.0 and both unit tars.
type unitPair struct {
	installed      string // the install directory of 1.0.0
	oldTar, newTar []byte
	artifact       []byte
	unitSum        unit.Sum
}

func newUnitPair(t *testing.T) unitPair {
	t.Helper()
	old, new := releases()
	var p unitPair
	p.installed = unitTree(t, "hermes-desktop", "1.0.0")
	writeFiles(t, p.installed, map[string][]byte{"hermes-desktop": old})
	next := unitTree(t, "hermes-desktop", "1.1.0")
	writeFiles(t, next, map[string][]byte{"hermes-desktop": new})
	var o, n bytes.Buffer
	if err := unit.WriteTar(&o, p.installed); err != nil {
		t.Fatal(err)
	}
	if err := unit.WriteTar(&n, next); err != nil {
		t.Fatal(err)
	}
	p.oldTar, p.newTar = o.Bytes(), n.Bytes()
	p.artifact, p.unitSum = packUnit(t, next)
	return p
}

// feed publishes 1.1.0's unit artifact with the patch served as given.
func (p unitPair) feed(t *testing.T, k testKey, served []byte) *patchFeed {
	listed := makePatch(t, p.oldTar, p.newTar)
	if served == nil {
		served = listed
	}
	return newPatchFeed(t, k, "1.1.0", p.artifact, []servedPatch{{from: p.oldTar, listed: listed, served: served}},
		func(a *Artifact) { a.UnitSHA256, a.UnitSize = p.unitSum.SHA256, p.unitSum.Size })
}

func (p unitPair) client(t *testing.T, f *patchFeed, k testKey, log *bytes.Buffer) *Client {
	return New(Config{FeedURL: f.url(), Keys: []string{k.String()}, Current: "1.0.0", Dir: t.TempDir(),
		Installed: filepath.Join(p.installed, "hermes-desktop"), Logger: slog.New(slog.NewTextHandler(log, nil))})
}

// A unit artifact's patch starts from the unit the install holds (its
// canonical tar) and rebuilds the new unit tar, checked against
// unit_sha256: the full artifact is never fetched.
func TestUnitPatchRebuildsTheUnit(t *testing.T) {
	k := newKey(t)
	p := newUnitPair(t)
	f := p.feed(t, k, nil)
	var log bytes.Buffer
	c := p.client(t, f, k, &log)
	rel, err := check(t, c)
	if err != nil {
		t.Fatal(err)
	}
	if rel.Patch == nil || rel.Patch.From != sha(p.oldTar) {
		t.Fatalf("got patch %+v; want the one from the installed unit %s", rel.Patch, sha(p.oldTar))
	}
	path, err := c.Download(t.Context(), rel, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); filepath.Base(path) != UnitTarName || !bytes.Equal(got, p.newTar) {
		t.Fatalf("got %s (%d bytes), want the new unit tar", path, len(got))
	}
	if a, g := f.artifactGets.Load(), f.patchGets.Load(); a != 0 || g != 1 {
		t.Errorf("got %d requests for the patch and %d for the artifact, want 1 and 0", g, a)
	}
}

// A corrupted patch of a unit falls back to the full unit artifact, and
// the update still gets its unit.
func TestCorruptUnitPatchFallsBack(t *testing.T) {
	k := newKey(t)
	p := newUnitPair(t)
	bad := makePatch(t, p.oldTar, p.newTar)
	bad[len(bad)/2] ^= 0xff
	f := p.feed(t, k, bad)
	var log bytes.Buffer
	c := p.client(t, f, k, &log)
	path, err := download(t, c, nil)
	if err != nil {
		t.Fatal(err)
	}
	if unit.VerifyFile(path, p.unitSum) != nil {
		t.Fatalf("got %s, want the verified new unit", path)
	}
	if a, g := f.artifactGets.Load(), f.patchGets.Load(); a != 1 || g != 1 {
		t.Errorf("got %d requests for the patch and %d for the artifact, want 1 and 1", g, a)
	}
	if !strings.Contains(log.String(), "the patch did not work") {
		t.Errorf("log %q does not say the patch failed", log.String())
	}
}

// A unit changed since the last check (a core rewritten by hand) is no
// longer the one the patch starts from: the cached digest follows the
// files, and the full artifact is taken.
func TestChangedUnitTakesTheFullArtifact(t *testing.T) {
	k := newKey(t)
	p := newUnitPair(t)
	f := p.feed(t, k, nil)
	var log bytes.Buffer
	c := p.client(t, f, k, &log)
	if rel, err := check(t, c); err != nil || rel.Patch == nil {
		t.Fatalf("before the change: %+v %v, want a patch", rel, err)
	}
	writeFiles(t, p.installed, map[string][]byte{"cores/core.gz": []byte("edited by hand")})
	rel, err := check(t, c)
	if err != nil || rel.Patch != nil {
		t.Fatalf("after the change: patch %+v %v, want none", rel.Patch, err)
	}
}
