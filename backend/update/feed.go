package update

import (
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"

	"aead.dev/minisign"
)

// The feed, defined once for the client here and the release tool
// (cmd/release): per channel, a static JSON manifest and its detached
// minisign signature next to it.
//
//	<base>/stable.json          {"version": "1.1.0", "notes": "...", "pub_date": "2026-...Z",
//	                             "expires": "2026-...Z", "rollout": 30, "critical": false,
//	                             "platforms": {"linux-amd64-webkit41": {"url": "...", "sha256": "<hex>", "size": N,
//	                                 "patches": [{"from": "<hex>", "url": "...", "sha256": "<hex>", "size": N}, ...]}, ...}}
//	<base>/stable.json.minisig  minisign signature of those exact bytes, whose trusted
//	                            comment is "hermes-desktop stable 1.1.0 2026-...Z" (TrustedComment)
//
// The trusted comment is covered by the signature, so a manifest of
// another channel, or an older manifest served again, cannot pass for the
// current one: the client checks that the comment names its channel, the
// manifest's version and its expiry, that the expiry has not passed
// (fresh.go), that the manifest is not older than the newest this install
// accepted, and that its version is newer than the running one. A
// manifest without an expiry is refused: every feed is signed with one.
// An artifact URL may be relative to the manifest's. A platform key is
// GOOS-GOARCH, with the Linux desktop build's WebKitGTK flavour after it
// (linux-amd64-webkit41, linux-amd64-webkit40; flavour.go): an install
// takes only the key of its own build (Platform), so a WebKitGTK 4.1
// install never downloads a 4.0 build, and a feed without its key offers
// it nothing (ErrNoBuild). A release may be offered to a share of the
// installs first (rollout, rollout.go), unless it is critical.

// Product is the first word of every trusted comment.
const Product = "hermes-desktop"

// SignatureSuffix is appended to the manifest's URL (and file name) for
// its signature.
const SignatureSuffix = ".minisig"

// DefaultChannel is the channel of a feed URL that names no file.
const DefaultChannel = "stable"

// Size limits: what the client reads at most.
const (
	MaxManifestSize  = 1 << 20
	MaxSignatureSize = 4 << 10
	// DefaultMaxArtifactSize bounds an artifact unless Config says otherwise.
	DefaultMaxArtifactSize = 512 << 20
)

// Manifest is one channel's latest release.
type Manifest struct {
	Version string `json:"version"`
	Notes   string `json:"notes,omitempty"`
	PubDate string `json:"pub_date,omitempty"`
	// Expires is when the signature stops being accepted, RFC 3339 UTC
	// ("2026-12-20T10:00:00Z"); the trusted comment names it too. Required:
	// a feed is re-signed before it passes (release resign).
	Expires string `json:"expires"`
	// Rollout is the share of installs offered this release, 0 to 100; nil
	// (absent) means 100. The same installs come first every release.
	Rollout *int `json:"rollout,omitempty"`
	// Critical offers the release to every install at once, whatever
	// Rollout says.
	Critical  bool                `json:"critical,omitempty"`
	Platforms map[string]Artifact `json:"platforms"`
}

// Artifact is the file to install on one platform.
type Artifact struct {
	// URL is absolute, or relative to the manifest's URL.
	URL string `json:"url"`
	// SHA256 is the file's digest, lowercase hex.
	SHA256 string `json:"sha256"`
	// Size is the file's length in bytes.
	Size int64 `json:"size"`
	// UnitSHA256 and UnitSize name the unit the file unpacks to (its
	// canonical tar, backend/update/unit: lowercase hex and bytes), for
	// the installs an update replaces as a unit: the Linux archive and the
	// Windows install, whose artifact is that tar compressed with zstd
	// (unit.go). Empty for the macOS bundle.
	UnitSHA256 string `json:"unit_sha256,omitempty"`
	UnitSize   int64  `json:"unit_size,omitempty"`
	// Patches rebuild this release from earlier ones (patch.go): a unit
	// artifact's its unit tar, another artifact the file itself.
	Patches []Patch `json:"patches,omitempty"`
}

// MaxPatches bounds the patches one artifact lists.
const MaxPatches = 16

// Patch is a patch from an earlier release to an artifact's
// (backend/update/delta makes and applies it).
type Patch struct {
	// From is the SHA-256 (lowercase hex) of the installed release the
	// patch applies to, as an install of it holds it: its unit tar (the
	// earlier release's unit_sha256) for a unit artifact, else the file.
	From string `json:"from"`
	// URL, SHA256 and Size are the patch file's, as an artifact's.
	URL    string `json:"url"`
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
}

var (
	// GOOS-GOARCH, and a flavour for a flavoured build (flavour.go).
	platformPattern = regexp.MustCompile(`^[a-z0-9]+-[a-z0-9]+(-[a-z0-9]+)?$`)
	channelPattern  = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,31}$`)
	sha256Pattern   = regexp.MustCompile(`^[0-9a-f]{64}$`)
)

// ValidChannel reports whether name can be a channel (and a file name).
func ValidChannel(name string) bool { return channelPattern.MatchString(name) }

// TrustedComment is the signed comment of a channel's manifest at version,
// expiring at expires (the manifest's Expires, as it spells it).
func TrustedComment(channel, version, expires string) string {
	return Product + " " + channel + " " + version + " " + expires
}

// Signed is what a manifest's signature binds, read from its trusted
// comment: the channel, the version, and the expiry ("" in the comment of
// an old feed, signed before feeds expired: the client refuses it, the
// release tool re-signs it).
type Signed struct{ Channel, Version, Expires string }

// VerifySignature checks that sig is a signature of data by one of keys
// and returns what its trusted comment binds. The client and the release
// tool (before it re-signs a feed) verify with it.
func VerifySignature(keys []minisign.PublicKey, data, sig []byte) (Signed, error) {
	var s minisign.Signature
	if err := s.UnmarshalText(sig); err != nil {
		return Signed{}, fmt.Errorf("%w: %w", ErrSignature, err)
	}
	if !slices.ContainsFunc(keys, func(k minisign.PublicKey) bool { return minisign.Verify(k, data, sig) }) {
		return Signed{}, fmt.Errorf("%w: the manifest is not signed by a trusted key (key id %X)", ErrSignature, s.KeyID)
	}
	f := strings.Fields(s.TrustedComment)
	switch {
	case len(f) == 3 && f[0] == Product:
		return Signed{Channel: f[1], Version: f[2]}, nil
	case len(f) != 4 || f[0] != Product:
		return Signed{}, fmt.Errorf("%w: the trusted comment %q is not %q", ErrSignature, s.TrustedComment, TrustedComment("CHANNEL", "VERSION", "EXPIRES"))
	}
	return Signed{Channel: f[1], Version: f[2], Expires: f[3]}, nil
}

// Binds checks that the signature is the one of channel's manifest m: the
// comment names its channel, version and expiry (the same string), so a
// replayed or mixed-up manifest does not pass.
func (s Signed) Binds(channel string, m *Manifest) error {
	if s.Channel != channel || s.Version != m.Version || s.Expires != m.Expires {
		return fmt.Errorf("%w: the signature is for %s %s expiring %s, the manifest is %s %s expiring %q (a replayed or mixed-up manifest)",
			ErrSignature, s.Channel, s.Version, s.Expires, channel, m.Version, m.Expires)
	}
	return nil
}

// SignManifest encodes m as the feed serves it and signs it for channel
// with a trusted comment binding channel, version and expiry. The release
// tool signs with it, and so do the tests' and benchmarks' feeds.
func SignManifest(priv minisign.PrivateKey, channel string, m *Manifest) (data, sig []byte, err error) {
	if !ValidChannel(channel) {
		return nil, nil, fmt.Errorf("update: %q is not a channel name", channel)
	}
	if err := m.Validate(DefaultMaxArtifactSize); err != nil {
		return nil, nil, err
	}
	if m.Expires == "" {
		return nil, nil, fmt.Errorf("%w: manifest: no expires: every feed is signed with one", ErrFeed)
	}
	if data, err = json.MarshalIndent(m, "", "  "); err != nil {
		return nil, nil, fmt.Errorf("update: %w", err)
	}
	data = append(data, '\n')
	sig = minisign.SignWithComments(priv, data, TrustedComment(channel, m.Version, m.Expires), "signature from the hermes-desktop release key")
	return data, sig, nil
}

// ParseManifest decodes a manifest and checks every field.
func ParseManifest(data []byte, maxArtifact int64) (*Manifest, error) {
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%w: manifest: %w", ErrFeed, err)
	}
	if err := m.Validate(maxArtifact); err != nil {
		return nil, err
	}
	return &m, nil
}

// Validate checks the manifest's version, date and every platform's entry.
func (m *Manifest) Validate(maxArtifact int64) error {
	if _, err := ParseVersion(m.Version); err != nil {
		return fmt.Errorf("%w: manifest: %w", ErrFeed, err)
	}
	if m.PubDate != "" {
		if _, err := time.Parse(time.RFC3339, m.PubDate); err != nil {
			return fmt.Errorf("%w: manifest: pub_date %q is not RFC 3339", ErrFeed, m.PubDate)
		}
	}
	// An old manifest without one is valid here, for the release tool to
	// re-sign; the client requires it through the trusted comment.
	if m.Expires != "" {
		if _, err := ParseExpiry(m.Expires); err != nil {
			return fmt.Errorf("%w: manifest: %w", ErrFeed, err)
		}
	}
	if m.Rollout != nil && (*m.Rollout < 0 || *m.Rollout > 100) {
		return fmt.Errorf("%w: manifest: rollout %d is not a share from 0 to 100", ErrFeed, *m.Rollout)
	}
	if len(m.Notes) > 64<<10 {
		return fmt.Errorf("%w: manifest: notes over 64 KiB", ErrFeed)
	}
	for name, a := range m.Platforms {
		if !platformPattern.MatchString(name) {
			return fmt.Errorf("%w: manifest: platform %q is not like linux-amd64 or linux-amd64-webkit41", ErrFeed, name)
		}
		if err := a.validate(maxArtifact); err != nil {
			return fmt.Errorf("%w: manifest: %s: %w", ErrFeed, name, err)
		}
	}
	return nil
}

func (a Artifact) validate(maxSize int64) error {
	switch {
	case a.URL == "":
		return fmt.Errorf("no url")
	case !sha256Pattern.MatchString(a.SHA256):
		return fmt.Errorf("sha256 %q is not 64 lowercase hex digits", a.SHA256)
	case a.Size <= 0:
		return fmt.Errorf("size %d is not positive", a.Size)
	case a.Size > maxSize:
		return fmt.Errorf("size %d is over the limit of %d bytes", a.Size, maxSize)
	}
	if _, err := url.Parse(a.URL); err != nil {
		return fmt.Errorf("url %q: %w", a.URL, err)
	}
	if err := validatePatches(a.Patches, maxSize); err != nil {
		return err
	}
	return a.validateUnit()
}

// validatePatches checks each patch as an artifact (without patches of
// its own), its from as a digest, and at most one per from.
func validatePatches(ps []Patch, maxSize int64) error {
	if len(ps) > MaxPatches {
		return fmt.Errorf("%d patches, at most %d", len(ps), MaxPatches)
	}
	seen := map[string]bool{}
	for i, p := range ps {
		err := Artifact{URL: p.URL, SHA256: p.SHA256, Size: p.Size}.validate(maxSize)
		switch {
		case !sha256Pattern.MatchString(p.From):
			err = fmt.Errorf("from %q is not 64 lowercase hex digits", p.From)
		case seen[p.From]:
			err = fmt.Errorf("a second patch from %s", p.From)
		}
		if err != nil {
			return fmt.Errorf("patch %d: %w", i, err)
		}
		seen[p.From] = true
	}
	return nil
}

// ChannelOf is the channel a feed URL's path names: "stable" for
// ".../stable.json".
func ChannelOf(manifestPath string) string {
	return strings.TrimSuffix(path.Base(manifestPath), ".json")
}
