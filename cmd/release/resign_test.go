package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"aead.dev/minisign"

	"hermes-desktop/backend/update"
)

// releaseTool is a key pair and a feed directory the tool writes, served
// on loopback, and an install (its own state) checking it.
type releaseTool struct {
	keys, feed string
	install    *update.Client
}

func newReleaseTool(t *testing.T) *releaseTool {
	t.Helper()
	r := &releaseTool{keys: t.TempDir(), feed: t.TempDir()}
	if code := run([]string{"keygen", "-out", r.keys}, io.Discard, io.Discard); code != 0 {
		t.Fatalf("keygen: exit %d", code)
	}
	pub, err := os.ReadFile(filepath.Join(r.keys, PubKeyFile))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(r.feed)))
	t.Cleanup(srv.Close)
	r.install = update.New(update.Config{FeedURL: srv.URL + "/stable.json", Keys: []string{string(pub)}, Current: "1.0.0", Dir: t.TempDir()})
	return r
}

// run runs the tool's command with -key and -out added, and returns its
// exit code and what it printed.
func (r *releaseTool) run(cmd string, args ...string) (int, string) {
	var out strings.Builder
	all := append([]string{cmd, "-key", filepath.Join(r.keys, KeyFile), "-out", r.feed}, args...)
	code := run(all, &out, &out)
	return code, out.String()
}

func (r *releaseTool) manifest(t *testing.T) *update.Manifest {
	t.Helper()
	m, err := update.ParseManifest(must(os.ReadFile(filepath.Join(r.feed, "stable.json"))), update.DefaultMaxArtifactSize)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func (r *releaseTool) check() error {
	_, err := r.install.Check(context.Background())
	return err
}

// sign sets an expiry, resign moves it later without a new release, and
// an install that accepted the first takes the second; an earlier expiry
// is refused by the tool, as installs would refuse it.
func TestResign(t *testing.T) {
	r := newReleaseTool(t)
	art, said := pack(t, unitDir(t, exeFor(update.Platform()), "the new binary", "1.1.0"), update.Platform(), "1.1.0")
	if art == "" {
		t.Fatalf("pack: %s", said)
	}
	code, out := r.run("sign", "-version", "1.1.0", "-url", "dl/hermes-desktop", "-platform", update.Platform(), "-expires", "2h", art)
	if code != 0 || !strings.Contains(out, "expires 20") {
		t.Fatalf("sign: exit %d %q", code, out)
	}
	first := r.manifest(t)
	if exp, err := update.ParseExpiry(first.Expires); err != nil || time.Until(exp) > 2*time.Hour || time.Until(exp) < time.Hour {
		t.Fatalf("sign -expires 2h: got expires %q, %v", first.Expires, err)
	}
	if err := r.check(); err != nil {
		t.Fatalf("check: %v", err)
	}
	code, out = r.run("resign", "-rollout", "30")
	second := r.manifest(t)
	if code != 0 || second.Version != "1.1.0" || second.Expires <= first.Expires || second.Rollout == nil || *second.Rollout != 30 ||
		len(second.Platforms) != 1 || !strings.Contains(out, "re-signed stable 1.1.0") || !strings.Contains(out, "offered to 30% of installs") {
		t.Fatalf("resign: exit %d %q, manifest %+v", code, out, second)
	}
	if err := r.check(); err != nil && !errors.Is(err, update.ErrRollout) {
		t.Fatalf("check after resign: got %v, want it accepted", err)
	}
	// Twice within a second: each re-signature still expires later than
	// the one before, so installs take the last as the newest.
	for range 2 {
		before := r.manifest(t).Expires
		if code, out := r.run("resign", "-expires", before); code != 0 || r.manifest(t).Expires <= before {
			t.Fatalf("resign -expires %s: exit %d %q, expires %s; want later", before, code, out, r.manifest(t).Expires)
		}
	}
	if code, out := r.run("resign", "-expires", "1h"); code == 0 || !strings.Contains(out, "would refuse this one as a replay") {
		t.Errorf("resign with an earlier expiry: got exit %d %q, want it refused", code, out)
	}
	for _, bad := range []string{"0d", "-3d", "soon", "2020-01-01T00:00:00Z"} {
		if code, out := r.run("resign", "-expires", bad); code == 0 {
			t.Errorf("resign -expires %s: got exit 0 %q, want it refused", bad, out)
		}
	}
	if code, _ := r.run("resign", "-rollout", "101"); code == 0 {
		t.Error("resign -rollout 101 was accepted")
	}
}

// A feed signed before feeds expired is refused by installs until it is
// re-signed; resign gives it an expiry.
func TestResignOldFeed(t *testing.T) {
	r := newReleaseTool(t)
	data := []byte(`{"version":"1.1.0","platforms":{"` + update.Platform() + `":{"url":"dl/x","sha256":"` + strings.Repeat("a", 64) + `","size":10}}}`)
	priv, err := readKey(filepath.Join(r.keys, KeyFile))
	if err != nil {
		t.Fatal(err)
	}
	sig := minisign.SignWithComments(priv, data, update.Product+" stable 1.1.0", "an old release tool's")
	if err := os.WriteFile(filepath.Join(r.feed, "stable.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(r.feed, "stable.json.minisig"), sig, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := r.check(); !errors.Is(err, update.ErrStale) || !strings.Contains(err.Error(), "release resign") {
		t.Fatalf("the old feed: got %v, want it refused, saying to re-sign it", err)
	}
	if code, out := r.run("resign"); code != 0 {
		t.Fatalf("resign: exit %d %q", code, out)
	}
	if err := r.check(); err != nil {
		t.Fatalf("after resign: got %v, want it accepted", err)
	}
}

// resign and sign verify the manifest they sign again: one changed since
// it was signed (a URL swapped, say) or signed with another key is
// refused, and left as it is, unsigned.
func TestResignRefusesAnUnverifiedManifest(t *testing.T) {
	r := newReleaseTool(t)
	art, said := pack(t, unitDir(t, exeFor(update.Platform()), "the new binary", "1.1.0"), update.Platform(), "1.1.0")
	win, winSaid := pack(t, unitDir(t, exeFor("windows-amd64"), "the new binary", "1.1.0"), "windows-amd64", "1.1.0")
	if art == "" || win == "" {
		t.Fatalf("pack: %s %s", said, winSaid)
	}
	if code, out := r.run("sign", "-version", "1.1.0", "-url", "dl/hermes-desktop", "-platform", update.Platform(), art); code != 0 {
		t.Fatalf("sign: exit %d %q", code, out)
	}
	path := filepath.Join(r.feed, "stable.json")
	signed := must(os.ReadFile(path))
	edited := bytes.Replace(signed, []byte(`"dl/hermes-desktop"`), []byte(`"https://elsewhere.example/evil"`), 1)
	if bytes.Equal(edited, signed) {
		t.Fatal("the test's edit changed nothing")
	}
	if err := os.WriteFile(path, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out := r.run("resign"); code == 0 || !strings.Contains(out, "changed since it was signed") {
		t.Errorf("resign of an edited manifest: got exit %d %q, want it refused, saying why", code, out)
	}
	if code, out := r.run("sign", "-version", "1.1.0", "-url", "dl/hermes-desktop", "-platform", "windows-amd64", win); code == 0 || !strings.Contains(out, "changed since it was signed") {
		t.Errorf("sign into an edited manifest: got exit %d %q, want it refused, saying why", code, out)
	}
	if got := must(os.ReadFile(path)); !bytes.Equal(got, edited) {
		t.Error("the edited manifest was rewritten")
	}
	if err := r.check(); !errors.Is(err, update.ErrSignature) {
		t.Errorf("check of the edited manifest: got %v, want %v (it was never signed)", err, update.ErrSignature)
	}

	// Signed with another key: refused by this one.
	other := t.TempDir()
	if code := run([]string{"keygen", "-out", other}, io.Discard, io.Discard); code != 0 {
		t.Fatalf("keygen: exit %d", code)
	}
	if err := os.WriteFile(path, signed, 0o644); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if code := run([]string{"resign", "-key", filepath.Join(other, KeyFile), "-out", r.feed}, &out, &out); code == 0 || !strings.Contains(out.String(), "another key") {
		t.Errorf("resign with another key: got exit %d %q, want it refused", code, out.String())
	}
	if code, out := r.run("resign"); code != 0 {
		t.Errorf("resign of the manifest as signed: got exit %d %q, want it re-signed", code, out)
	}
}
