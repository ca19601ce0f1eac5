package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hermes-desktop/backend/update"
	"hermes-desktop/backend/update/delta"
	"hermes-desktop/backend/update/unit"
)

// release is a unit of version whose executable is exe's bytes, packed
// for platform p: its artifact's path and its unit directory.
func release(t *testing.T, p, version string, exe []byte) (artifact, dir string) {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "exe")
	if err := os.WriteFile(bin, exe, 0o755); err != nil {
		t.Fatal(err)
	}
	dir = unitDir(t, exeFor(p), bin, version)
	artifact, said := pack(t, dir, p, version)
	if artifact == "" {
		t.Fatalf("pack %s: %s", version, said)
	}
	return artifact, dir
}

// sign -releases writes patches from the two newest earlier releases of
// the platform next to the artifact, between their unit tars, and lists
// them; a client whose install is one of them downloads its patch and
// gets the new release's unit tar.
func TestSignWritesPatches(t *testing.T) {
	keys, feed, releases := t.TempDir(), t.TempDir(), t.TempDir()
	if code := run([]string{"keygen", "-out", keys}, io.Discard, io.Discard); code != 0 {
		t.Fatalf("keygen: exit %d", code)
	}
	pub := must(os.ReadFile(filepath.Join(keys, PubKeyFile)))
	p := update.Platform()
	base := make([]byte, 256<<10)
	rand.Read(base)
	edit := func(s string) []byte { b := bytes.Clone(base); copy(b[len(b)/2:], s); return b }
	froms := map[string]string{} // version -> its unit tar's digest
	dirs := map[string]string{}
	for v, mark := range map[string]string{"1.0.0": "one", "1.1.0": "two", "0.9.0": "three"} {
		art, dir := release(t, p, v, edit(mark))
		if err := os.Rename(art, filepath.Join(releases, filepath.Base(art))); err != nil {
			t.Fatal(err)
		}
		froms[v], dirs[v] = must(unit.Digest(dir)).SHA256, dir
	}
	for _, name := range []string{update.UnitArtifactName("1.3.0", p), update.UnitArtifactName("1.0.5", p+"-webkit40"), "hermes-desktop-1.0.0-" + p, "notes.txt"} {
		os.WriteFile(filepath.Join(releases, name), []byte("not a candidate"), 0o644) // newer, another platform, a bare executable, another file
	}
	art, newDir := release(t, p, "1.2.0", edit("new"))
	dist := filepath.Dir(art)
	var out strings.Builder
	if code := run([]string{"sign", "-key", filepath.Join(keys, KeyFile), "-version", "1.2.0", "-url", "dl/" + filepath.Base(art) + "?x=1",
		"-out", feed, "-platform", p, "-releases", releases, art}, &out, &out); code != 0 {
		t.Fatalf("sign: exit %d: %s", code, out.String())
	}
	m, err := update.ParseManifest(must(os.ReadFile(filepath.Join(feed, "stable.json"))), update.DefaultMaxArtifactSize)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, pt := range m.Platforms[p].Patches {
		got = append(got, pt.From)
		if want := "dl/hermes-desktop-"; !strings.HasPrefix(pt.URL, want) || !strings.HasSuffix(pt.URL, "-to-1.2.0-"+p+".patch") {
			t.Errorf("patch url %q, want one next to the artifact's", pt.URL)
		}
		if _, err := os.Stat(filepath.Join(dist, strings.TrimPrefix(pt.URL, "dl/"))); err != nil {
			t.Errorf("the patch is not next to the artifact: %v", err)
		}
	}
	if want := []string{froms["1.1.0"], froms["1.0.0"]}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("patches from %v, want from 1.1.0 and 1.0.0 (%v)\n%s", got, want, out.String())
	}

	// Publish as the URLs say and update an install of 1.0.0.
	os.MkdirAll(filepath.Join(feed, "dl"), 0o755)
	for _, e := range must(os.ReadDir(dist)) {
		os.Rename(filepath.Join(dist, e.Name()), filepath.Join(feed, "dl", e.Name()))
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(feed)))
	t.Cleanup(srv.Close)
	c := update.New(update.Config{FeedURL: srv.URL + "/stable.json", Keys: []string{string(pub)}, Current: "1.0.0", Dir: t.TempDir(),
		Installed: filepath.Join(dirs["1.0.0"], exeFor(p))})
	rel, err := c.Check(context.Background())
	if err != nil || rel.Patch == nil {
		t.Fatalf("check: %+v %v, want a patch", rel, err)
	}
	path, err := c.Download(context.Background(), rel, nil)
	var want bytes.Buffer
	if err := unit.WriteTar(&want, newDir); err != nil {
		t.Fatal(err)
	}
	if err != nil || !bytes.Equal(must(os.ReadFile(path)), want.Bytes()) {
		t.Fatalf("download: %v; want the new release's unit tar", err)
	}
}

// A sign that is refused (here: a version older than the feed's) writes
// no patches: they are made only once the manifest can be signed.
func TestRefusedSignWritesNoPatches(t *testing.T) {
	keys, feed, releases := t.TempDir(), t.TempDir(), t.TempDir()
	if code := run([]string{"keygen", "-out", keys}, io.Discard, io.Discard); code != 0 {
		t.Fatalf("keygen: exit %d", code)
	}
	p := update.Platform()
	old := make([]byte, 64<<10)
	rand.Read(old)
	art, _ := release(t, p, "1.0.0", old)
	if err := os.Rename(art, filepath.Join(releases, filepath.Base(art))); err != nil {
		t.Fatal(err)
	}
	var dist string
	signAs := func(version string) (int, string) {
		art, _ := release(t, p, version, append(bytes.Clone(old), version...))
		dist = filepath.Dir(art)
		var out strings.Builder
		code := run([]string{"sign", "-key", filepath.Join(keys, KeyFile), "-version", version, "-url", "dl/" + filepath.Base(art),
			"-out", feed, "-platform", p, "-releases", releases, art}, &out, &out)
		return code, out.String()
	}
	if code, out := signAs("1.2.0"); code != 0 || !strings.Contains(out, "patch from 1.0.0") {
		t.Fatalf("sign 1.2.0: exit %d: %s", code, out)
	}
	if code, out := signAs("1.1.0"); code == 0 || !strings.Contains(out, "never goes back") {
		t.Fatalf("sign 1.1.0 after 1.2.0: exit %d %q, want it refused", code, out)
	}
	for _, e := range must(os.ReadDir(dist)) {
		if strings.Contains(e.Name(), "-to-1.1.0-") {
			t.Errorf("the refused sign left %s", e.Name())
		}
	}
}

func TestGzipIsWhatPatchesExpand(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "core"), filepath.Join(dir, "core.gz")
	os.WriteFile(in, bytes.Repeat([]byte("core "), 1000), 0o644)
	if code := run([]string{"gzip", in, out}, io.Discard, io.Discard); code != 0 {
		t.Fatalf("gzip: exit %d", code)
	}
	raw := must(os.ReadFile(in))
	view, err := delta.Expand(must(os.ReadFile(out)), true)
	if err != nil || !bytes.Contains(view, raw) {
		t.Fatalf("the gzip'd file does not expand for a patch (%v)", err)
	}
}
