package update

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func newClient(t *testing.T, f *feed, k testKey, current string) *Client {
	t.Helper()
	return New(Config{FeedURL: f.url(), Keys: []string{"", k.String()}, Current: current, Dir: t.TempDir()})
}

func check(t *testing.T, c *Client) (*Release, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return c.Check(ctx)
}

func TestCheckVerifies(t *testing.T) {
	k, other := newKey(t), newKey(t)
	art := randomBytes(1000)
	exp := expiresIn(time.Hour)
	cases := []struct {
		name    string
		publish func(f *feed)
		current string
		want    error
	}{
		{"newer", func(f *feed) { f.publish(t, k, "1.1.0", "stable", "1.1.0", art) }, "1.0.0", nil},
		{"equal is not offered", func(f *feed) { f.publish(t, k, "1.0.0", "stable", "1.0.0", art) }, "1.0.0", ErrUpToDate},
		{"older is not offered", func(f *feed) { f.publish(t, k, "0.9.0", "stable", "0.9.0", art) }, "1.0.0", ErrUpToDate},
		{"pre-release of the running version is older", func(f *feed) { f.publish(t, k, "1.0.0-rc.1", "stable", "1.0.0-rc.1", art) }, "1.0.0", ErrUpToDate},
		{"another key", func(f *feed) { f.publish(t, other, "1.1.0", "stable", "1.1.0", art) }, "1.0.0", ErrSignature},
		{"another channel's manifest", func(f *feed) { f.publish(t, k, "1.1.0", "beta", "1.1.0", art) }, "1.0.0", ErrSignature},
		{"comment names another version", func(f *feed) { f.publish(t, k, "1.1.0", "stable", "1.2.0", art) }, "1.0.0", ErrSignature},
		{"tampered manifest", func(f *feed) {
			f.publish(t, k, "1.1.0", "stable", "1.1.0", art)
			f.manifest = []byte(strings.Replace(string(f.manifest), "notes of", "NOTES OF", 1))
		}, "1.0.0", ErrSignature},
		// An old manifest served again, with its own valid signature, to an
		// instance that already runs a newer version.
		{"replayed older manifest", func(f *feed) { f.publish(t, k, "1.1.0", "stable", "1.1.0", art) }, "1.2.0", ErrUpToDate},
		{"old manifest with a new signature", func(f *feed) {
			f.publish(t, k, "1.2.0", "stable", "1.2.0", art)
			newSig := f.sig
			f.publish(t, k, "1.1.0", "stable", "1.1.0", art)
			f.sig = newSig // the old manifest with the new one's signature
		}, "1.0.0", ErrSignature},
		{"garbage signature", func(f *feed) {
			f.publish(t, k, "1.1.0", "stable", "1.1.0", art)
			f.sig = []byte("not a signature")
		}, "1.0.0", ErrSignature},
		{"bad manifest, well signed", func(f *feed) {
			f.manifest = []byte(`{"version":"1.1.0","expires":"` + exp + `","platforms":{"linux-amd64":{"url":"x","sha256":"nothex","size":1}}}`)
			f.sig = k.sign(f.manifest, TrustedComment("stable", "1.1.0", exp))
		}, "1.0.0", ErrFeed},
		{"no build for this platform", func(f *feed) {
			f.manifest = []byte(`{"version":"1.1.0","expires":"` + exp + `","platforms":{}}`)
			f.sig = k.sign(f.manifest, TrustedComment("stable", "1.1.0", exp))
		}, "1.0.0", ErrNoBuild},
		{"insecure artifact URL", func(f *feed) {
			f.manifest = []byte(`{"version":"1.1.0","expires":"` + exp + `","platforms":{"` + Platform() + `":{"url":"http://example.com/x","sha256":"` + strings.Repeat("a", 64) + `","size":1}}}`)
			f.sig = k.sign(f.manifest, TrustedComment("stable", "1.1.0", exp))
		}, "1.0.0", ErrInsecure},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFeed(t)
			tc.publish(f)
			rel, err := check(t, newClient(t, f, k, tc.current))
			if tc.want == nil {
				if err != nil {
					t.Fatalf("got %v, want a release", err)
				}
				if rel.Version != "1.1.0" || rel.Notes != "notes of 1.1.0" || rel.Artifact.Size != 1000 || rel.Channel != "stable" ||
					rel.Artifact.URL != f.srv.URL+"/dl/hermes-desktop" {
					t.Errorf("got %+v, want 1.1.0 with its notes and the artifact URL resolved against the feed", rel)
				}
				return
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
}

func TestDisabled(t *testing.T) {
	k := newKey(t)
	cases := []struct {
		name string
		cfg  Config
		want string
	}{
		{"no key", Config{FeedURL: "https://example.com/stable.json", Current: "1.0.0"}, "no update key"},
		{"blank keys", Config{FeedURL: "https://example.com/stable.json", Keys: []string{"", " "}, Current: "1.0.0"}, "no update key"},
		{"bad key", Config{FeedURL: "https://example.com/stable.json", Keys: []string{"RWQnope"}, Current: "1.0.0"}, "invalid"},
		{"no feed", Config{Keys: []string{k.String()}, Current: "1.0.0"}, "no default feed"},
		{"http feed", Config{FeedURL: "http://example.com/stable.json", Keys: []string{k.String()}, Current: "1.0.0"}, "https only"},
		{"development build", Config{FeedURL: "https://example.com/stable.json", Keys: []string{k.String()}, Current: "0200a6e-dirty"}, "not a release version"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := New(tc.cfg)
			_, err := c.Check(context.Background())
			if !errors.Is(err, ErrDisabled) || !strings.Contains(err.Error(), tc.want) || Reason(err) != "disabled" {
				t.Fatalf("got %v (reason %q), want ErrDisabled saying %q", err, Reason(err), tc.want)
			}
			if c.Disabled() == nil {
				t.Error("Disabled() is nil")
			}
		})
	}
}

func TestFeedURL(t *testing.T) {
	cases := map[string]string{
		"https://example.com/feeds/":           "https://example.com/feeds/stable.json",
		"https://example.com/feeds":            "https://example.com/feeds/stable.json",
		"https://example.com/beta.json":        "https://example.com/beta.json",
		"http://127.0.0.1:8080/x/stable.json":  "http://127.0.0.1:8080/x/stable.json",
		"http://[::1]:8080/stable.json":        "http://[::1]:8080/stable.json",
		"http://localhost/updates/stable.json": "http://localhost/updates/stable.json",
	}
	for in, want := range cases {
		u, err := ParseFeedURL(in)
		if err != nil || u.String() != want {
			t.Errorf("ParseFeedURL(%q): got %v %v, want %s", in, u, err, want)
		}
	}
	for _, bad := range []string{"ftp://example.com/stable.json", "http://10.0.0.1/stable.json", "stable.json", "https://example.com/Bad Name.json"} {
		if _, err := ParseFeedURL(bad); err == nil {
			t.Errorf("ParseFeedURL(%q): got no error", bad)
		}
	}
}

func TestCheckOffline(t *testing.T) {
	k := newKey(t)
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL + "/stable.json"
	srv.Close() // nothing listens there any more
	c := New(Config{FeedURL: url, Keys: []string{k.String()}, Current: "1.0.0"})
	if _, err := c.Check(context.Background()); !errors.Is(err, ErrOffline) || Reason(err) != "offline" {
		t.Fatalf("got %v, want ErrOffline", err)
	}
}

func TestManifestSizeLimit(t *testing.T) {
	k := newKey(t)
	f := newFeed(t)
	f.manifest = []byte(`{"version":"1.1.0","notes":"` + strings.Repeat("x", MaxManifestSize) + `"}`)
	f.sig = k.sign(f.manifest, TrustedComment("stable", "1.1.0", "2026-01-02T03:04:05Z"))
	if _, err := check(t, newClient(t, f, k, "1.0.0")); !errors.Is(err, ErrFeed) || !strings.Contains(err.Error(), "over") {
		t.Fatalf("got %v, want the size limit", err)
	}
}

func TestRedirectToInsecureRefused(t *testing.T) {
	k := newKey(t)
	srv := httptest.NewServer(http.RedirectHandler("http://example.com/stable.json", http.StatusFound))
	t.Cleanup(srv.Close)
	c := New(Config{FeedURL: srv.URL + "/stable.json", Keys: []string{k.String()}, Current: "1.0.0"})
	if _, err := c.Check(context.Background()); !errors.Is(err, ErrInsecure) {
		t.Fatalf("got %v, want ErrInsecure", err)
	}
}
