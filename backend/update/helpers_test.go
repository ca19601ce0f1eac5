package update

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"aead.dev/minisign"
)

// testKey is a minisign key pair made for one test.
type testKey struct {
	pub  minisign.PublicKey
	priv minisign.PrivateKey
}

func newKey(t *testing.T) testKey {
	t.Helper()
	pub, priv, err := minisign.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return testKey{pub, priv}
}

func (k testKey) String() string { return k.pub.String() }

// sign signs data with a trusted comment, as cmd/release does.
func (k testKey) sign(data []byte, comment string) []byte {
	return minisign.SignWithComments(k.priv, data, comment, "signature from the test key")
}

// feed is a loopback feed server: a manifest, its signature and one
// artifact, with switches for the faults a test wants.
type feed struct {
	srv      *httptest.Server
	mu       sync.Mutex // guards the fields below
	manifest []byte
	sig      []byte
	artifact []byte
	// cutFirst cuts the first artifact response after this many bytes
	// (0: never).
	cutFirst int
	// noRange makes the artifact server ignore Range headers.
	noRange bool
	// extra bytes appended to the artifact on the wire (a server that
	// sends more than the manifest says).
	extra []byte

	artifactGets atomic.Int32
	rangeGets    atomic.Int32
}

func newFeed(t *testing.T) *feed {
	f := &feed{}
	mux := http.NewServeMux()
	mux.HandleFunc("/stable.json", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		w.Write(f.manifest)
	})
	mux.HandleFunc("/stable.json.minisig", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		w.Write(f.sig)
	})
	mux.HandleFunc("/dl/hermes-desktop", f.serveArtifact)
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

func (f *feed) url() string { return f.srv.URL + "/stable.json" }

// publish sets the artifact and a manifest for version, expiring in an
// hour, signed by k with the comment for (channel, commentVersion).
func (f *feed) publish(t *testing.T, k testKey, version, channel, commentVersion string, artifact []byte) {
	t.Helper()
	f.publishWith(t, k, version, channel, commentVersion, artifact, func(*Manifest) {})
}

// publishWith is publish with edit changing the manifest before it is
// signed (its expiry, rollout, ...); the comment names its expiry.
func (f *feed) publishWith(t *testing.T, k testKey, version, channel, commentVersion string, artifact []byte, edit func(*Manifest)) {
	t.Helper()
	sum := sha256.Sum256(artifact)
	m := Manifest{Version: version, Notes: "notes of " + version, PubDate: "2026-01-02T03:04:05Z", Expires: expiresIn(time.Hour),
		Platforms: map[string]Artifact{Platform(): {URL: "dl/hermes-desktop", SHA256: hex.EncodeToString(sum[:]), Size: int64(len(artifact))}}}
	edit(&m)
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.manifest, f.artifact = data, artifact
	f.sig = k.sign(data, TrustedComment(channel, commentVersion, m.Expires))
}

// expiresIn is an expiry d from now, as a manifest spells it.
func expiresIn(d time.Duration) string { return FormatExpiry(time.Now().Add(d)) }

func (f *feed) serveArtifact(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	body := append(append([]byte(nil), f.artifact...), f.extra...)
	cut, noRange := f.cutFirst, f.noRange
	f.mu.Unlock()
	n := f.artifactGets.Add(1)
	start := 0
	if rg := r.Header.Get("Range"); rg != "" && !noRange {
		f.rangeGets.Add(1)
		start, _ = strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(rg, "bytes="), "-"))
		w.Header().Set("Content-Range", "bytes "+strconv.Itoa(start)+"-"+strconv.Itoa(len(body)-1)+"/"+strconv.Itoa(len(body)))
		w.Header().Set("Content-Length", strconv.Itoa(len(body)-start))
		w.WriteHeader(http.StatusPartialContent)
	} else {
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	}
	if n == 1 && cut > 0 {
		w.Write(body[start:cut])
		// Hijack and close: the client sees the body end early.
		if hj, ok := w.(http.Hijacker); ok {
			if c, _, err := hj.Hijack(); err == nil {
				c.Close()
			}
		}
		return
	}
	w.Write(body[start:])
}

// randomBytes returns n random bytes (an "artifact").
func randomBytes(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return b
}
