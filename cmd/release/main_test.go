package main

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hermes-desktop/backend/update"
	"hermes-desktop/lockfile/lockfiletest"
)

// TestKeygenSignVerify runs the tool as a release does and checks the
// client accepts what it wrote: one version, two platforms, then a newer
// version, and never an older one.
func TestKeygenSignVerify(t *testing.T) {
	keys, feed := t.TempDir(), t.TempDir()
	var out strings.Builder
	if code := run([]string{"keygen", "-out", keys}, &out, io.Discard); code != 0 {
		t.Fatalf("keygen: exit %d", code)
	}
	lockfiletest.WantPrivate(t, filepath.Join(keys, KeyFile), 0o600)
	if code := run([]string{"keygen", "-out", keys}, io.Discard, io.Discard); code == 0 {
		t.Error("keygen overwrote an existing key")
	}
	pub, err := os.ReadFile(filepath.Join(keys, PubKeyFile))
	if err != nil || !strings.Contains(out.String(), "UPDATE_PUBKEY=") {
		t.Fatalf("update.pub: %v; output %q", err, out.String())
	}
	art := filepath.Join(t.TempDir(), "hermes-desktop")
	if err := os.WriteFile(art, []byte("the new binary"), 0o755); err != nil {
		t.Fatal(err)
	}
	signAs := func(version, platform string) int {
		return run([]string{"sign", "-key", filepath.Join(keys, KeyFile), "-version", version, "-channel", "stable",
			"-url", "dl/hermes-desktop", "-out", feed, "-platform", platform, "-notes", "n", art}, io.Discard, io.Discard)
	}
	// A release signs one build per platform into one manifest: this one's
	// and another, whichever this is.
	second := "windows-amd64"
	if second == update.Platform() {
		second = "linux-amd64"
	}
	if signAs("1.1.0", update.Platform()) != 0 || signAs("1.1.0", second) != 0 {
		t.Fatal("sign failed")
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(feed)))
	t.Cleanup(srv.Close)
	c := update.New(update.Config{FeedURL: srv.URL + "/stable.json", Keys: []string{string(pub)}, Current: "1.0.0"})
	rel, err := c.Check(context.Background())
	if err != nil || rel.Version != "1.1.0" || rel.Artifact.Size != int64(len("the new binary")) {
		t.Fatalf("check: %+v %v", rel, err)
	}
	m, err := update.ParseManifest(must(os.ReadFile(filepath.Join(feed, "stable.json"))), update.DefaultMaxArtifactSize)
	if err != nil || len(m.Platforms) != 2 {
		t.Fatalf("manifest: %+v %v, want two platforms", m, err)
	}
	if signAs("1.2.0", update.Platform()) != 0 {
		t.Fatal("sign 1.2.0 failed")
	}
	m, _ = update.ParseManifest(must(os.ReadFile(filepath.Join(feed, "stable.json"))), update.DefaultMaxArtifactSize)
	if m.Version != "1.2.0" || len(m.Platforms) != 1 {
		t.Errorf("after 1.2.0: %+v, want a new manifest with one platform", m)
	}
	if signAs("1.1.5", update.Platform()) == 0 {
		t.Error("signing an older version than the feed's was accepted")
	}
	other := update.New(update.Config{FeedURL: srv.URL + "/stable.json", Keys: []string{"RWQf6LRCGA9i53mlYecO4IzT51TGPpvWucNSCh1CBM0QTaLn73Y7GFO3"}, Current: "1.0.0"})
	if _, err := other.Check(context.Background()); !errors.Is(err, update.ErrSignature) {
		t.Errorf("another key: got %v, want ErrSignature", err)
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
