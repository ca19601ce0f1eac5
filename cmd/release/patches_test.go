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
)

// sign -releases writes patches from the two newest earlier releases of
// the platform next to the artifact and lists them; a client whose
// install is one of them downloads its patch and gets the new release.
func TestSignWritesPatches(t *testing.T) {
	keys, feed, releases, dist := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	if code := run([]string{"keygen", "-out", keys}, io.Discard, io.Discard); code != 0 {
		t.Fatalf("keygen: exit %d", code)
	}
	pub := must(os.ReadFile(filepath.Join(keys, PubKeyFile)))
	p := update.Platform()
	base := make([]byte, 256<<10)
	rand.Read(base)
	edit := func(s string) []byte { b := bytes.Clone(base); copy(b[len(b)/2:], s); return b }
	olds := map[string][]byte{"1.0.0": edit("one"), "1.1.0": edit("two"), "0.9.0": edit("three")}
	for v, b := range olds {
		if err := os.WriteFile(filepath.Join(releases, "hermes-desktop-"+v+"-"+p), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"hermes-desktop-1.3.0-" + p, "hermes-desktop-1.0.5-" + p + "-webkit40", "notes.txt"} {
		os.WriteFile(filepath.Join(releases, name), []byte("not a candidate"), 0o644) // newer, another platform, another file
	}
	newBytes := edit("new")
	art := filepath.Join(dist, "hermes-desktop-1.2.0-"+p)
	if err := os.WriteFile(art, newBytes, 0o755); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if code := run([]string{"sign", "-key", filepath.Join(keys, KeyFile), "-version", "1.2.0", "-url", "dl/hermes-desktop-1.2.0-" + p + "?x=1",
		"-out", feed, "-platform", p, "-releases", releases, art}, &out, &out); code != 0 {
		t.Fatalf("sign: exit %d: %s", code, out.String())
	}
	m, err := update.ParseManifest(must(os.ReadFile(filepath.Join(feed, "stable.json"))), update.DefaultMaxArtifactSize)
	if err != nil {
		t.Fatal(err)
	}
	var froms []string
	for _, pt := range m.Platforms[p].Patches {
		froms = append(froms, pt.From)
		if want := "dl/hermes-desktop-"; !strings.HasPrefix(pt.URL, want) || !strings.HasSuffix(pt.URL, "-to-1.2.0-"+p+".patch") {
			t.Errorf("patch url %q, want one next to the artifact's", pt.URL)
		}
		if _, err := os.Stat(filepath.Join(dist, strings.TrimPrefix(pt.URL, "dl/"))); err != nil {
			t.Errorf("the patch is not next to the artifact: %v", err)
		}
	}
	if want := []string{digestOf(olds["1.1.0"]), digestOf(olds["1.0.0"])}; strings.Join(froms, ",") != strings.Join(want, ",") {
		t.Fatalf("patches from %v, want from 1.1.0 and 1.0.0 (%v)\n%s", froms, want, out.String())
	}

	// Publish as the URLs say and update an install of 1.0.0.
	os.MkdirAll(filepath.Join(feed, "dl"), 0o755)
	for _, e := range must2(os.ReadDir(dist)) {
		os.Rename(filepath.Join(dist, e.Name()), filepath.Join(feed, "dl", e.Name()))
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(feed)))
	t.Cleanup(srv.Close)
	c := update.New(update.Config{FeedURL: srv.URL + "/stable.json", Keys: []string{string(pub)}, Current: "1.0.0", Dir: t.TempDir(),
		Installed: filepath.Join(releases, "hermes-desktop-1.0.0-"+p)})
	rel, err := c.Check(context.Background())
	if err != nil || rel.Patch == nil {
		t.Fatalf("check: %+v %v, want a patch", rel, err)
	}
	path, err := c.Download(context.Background(), rel, nil)
	if err != nil || !bytes.Equal(must(os.ReadFile(path)), newBytes) {
		t.Fatalf("download: %v; want the new release", err)
	}
}

// A sign that is refused (here: a version older than the feed's) writes
// no patches: they are made only once the manifest can be signed.
func TestRefusedSignWritesNoPatches(t *testing.T) {
	keys, feed, releases, dist := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	if code := run([]string{"keygen", "-out", keys}, io.Discard, io.Discard); code != 0 {
		t.Fatalf("keygen: exit %d", code)
	}
	p := update.Platform()
	old := make([]byte, 64<<10)
	rand.Read(old)
	if err := os.WriteFile(filepath.Join(releases, "hermes-desktop-1.0.0-"+p), old, 0o644); err != nil {
		t.Fatal(err)
	}
	signAs := func(version string) (int, string) {
		art := filepath.Join(dist, "hermes-desktop-"+version+"-"+p)
		if err := os.WriteFile(art, append(bytes.Clone(old), version...), 0o755); err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		code := run([]string{"sign", "-key", filepath.Join(keys, KeyFile), "-version", version, "-url", "dl/hermes-desktop-" + version + "-" + p,
			"-out", feed, "-platform", p, "-releases", releases, art}, &out, &out)
		return code, out.String()
	}
	if code, out := signAs("1.2.0"); code != 0 {
		t.Fatalf("sign 1.2.0: exit %d: %s", code, out)
	}
	if code, out := signAs("1.1.0"); code == 0 || !strings.Contains(out, "never goes back") {
		t.Fatalf("sign 1.1.0 after 1.2.0: exit %d %q, want it refused", code, out)
	}
	for _, e := range must2(os.ReadDir(dist)) {
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

func must2[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
