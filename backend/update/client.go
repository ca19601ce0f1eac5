package update

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/url"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"aead.dev/minisign"

	"hermes-desktop/backend/update/delta"
	"hermes-desktop/backend/update/unit"
	"hermes-desktop/contract/hermes"
)

// Config configures a Client. Every zero field takes the default it names.
type Config struct {
	// FeedURL is the manifest's URL (".../stable.json"; the file name is
	// the channel), or a directory URL to which "stable.json" is added.
	// "" means updates are off: there is no default feed.
	FeedURL string
	// Keys are the trusted minisign public keys (the base64 line of a .pub
	// file, or the whole file); empty entries are skipped. None means
	// updates are off: keys are compiled in, never taken from the feed.
	Keys []string
	// Current is the running version; one that is not a semantic version
	// (a development build) turns updates off.
	Current string
	// Platform is the manifest key to install; "" means Platform(), this
	// build's (its flavour included).
	Platform string
	// Dir keeps downloads (<state>/updates), created 0700 when needed,
	// the newest manifest accepted on each channel (FeedFile) and the
	// install id (IDFile). "" keeps neither: the feed's expiry is still
	// checked, but not a replay of an older unexpired manifest, and the
	// install comes last in any rollout (only releases offered to all).
	Dir string
	// HTTP is the client to use; nil means one with connect, TLS and
	// header timeouts. Either way redirects must stay https (or loopback).
	HTTP *http.Client
	// MaxArtifactSize bounds the artifact; 0 means DefaultMaxArtifactSize.
	MaxArtifactSize int64
	// StallTimeout ends a download attempt that receives nothing for this
	// long (it is then resumed); 0 means 30 seconds.
	StallTimeout time.Duration
	// Installed is the installed executable (symlinks followed): a patch
	// applies to the unit of its directory for a unit artifact, to the
	// file for another (patch.go); "" means no patches: every update
	// downloads the full artifact.
	Installed string
	// Logger says why a patch was not used, or why the install has no id
	// for a rollout; nil means no log.
	Logger *slog.Logger
}

// Client checks the feed and downloads releases. It holds no state
// between calls except its configuration and the installed executable's
// digest (what it remembers is in Dir), and is safe for concurrent use.
type Client struct {
	cfg      Config
	keys     []minisign.PublicKey
	manifest *url.URL
	channel  string
	disabled error // why updates are off; nil when on
	// fresh serializes the read and write of the channel's FeedFile, so
	// two checks cannot record an older manifest over a newer one.
	fresh sync.Mutex
	// installed and installedUnit are Config.Installed and the unit of
	// its directory, with their digests; nil without Config.Installed.
	installed, installedUnit *delta.Reference
}

// New returns a client for cfg. It never fails: a configuration that
// cannot work makes every call return an ErrDisabled error saying why (see
// Disabled).
func New(cfg Config) *Client {
	c := &Client{cfg: cfg}
	if c.cfg.Platform == "" {
		c.cfg.Platform = Platform()
	}
	if c.cfg.MaxArtifactSize <= 0 {
		c.cfg.MaxArtifactSize = DefaultMaxArtifactSize
	}
	if c.cfg.StallTimeout <= 0 {
		c.cfg.StallTimeout = 30 * time.Second
	}
	if c.cfg.Logger == nil {
		c.cfg.Logger = slog.New(slog.DiscardHandler)
	}
	c.cfg.HTTP = secureRedirects(c.cfg.HTTP)
	if c.cfg.Installed != "" {
		c.installed = delta.NewReference(delta.File(c.cfg.Installed))
		c.installedUnit = delta.NewReference(unit.Tree(filepath.Dir(c.cfg.Installed)))
	}
	c.disabled = c.configure()
	return c
}

// configure parses the keys, the feed URL and the running version.
func (c *Client) configure() error {
	for _, k := range c.cfg.Keys {
		if strings.TrimSpace(k) == "" {
			continue
		}
		pk, err := ParseKey(k)
		if err != nil {
			return fmt.Errorf("%w: a compiled-in update key is invalid: %w", ErrDisabled, err)
		}
		c.keys = append(c.keys, pk)
	}
	if len(c.keys) == 0 {
		return fmt.Errorf("%w (it has no update key); install new versions the way you installed this one", ErrBuildOff)
	}
	if c.cfg.FeedURL == "" {
		return fmt.Errorf("%w: no update feed is set (--update-feed, HERMES_DESKTOP_UPDATE_FEED or update_feed in the settings; there is no default feed)", ErrDisabled)
	}
	u, err := ParseFeedURL(c.cfg.FeedURL)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrDisabled, err)
	}
	c.manifest, c.channel = u, ChannelOf(u.Path)
	if _, err := ParseVersion(c.cfg.Current); err != nil {
		return fmt.Errorf("%w (%q is not a release version)", ErrBuildOff, c.cfg.Current)
	}
	return nil
}

// ParseFeedURL checks a feed URL (https, or http on loopback) and returns
// the manifest's URL: a URL ending in "/" or naming no .json file gets
// "stable.json" added.
func ParseFeedURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("update: the feed %q is not an absolute URL", raw)
	}
	if err := CheckURL(u); err != nil {
		return nil, err
	}
	if !strings.HasSuffix(u.Path, ".json") {
		u.Path = strings.TrimSuffix(u.Path, "/") + "/" + DefaultChannel + ".json"
	}
	if ch := ChannelOf(u.Path); !ValidChannel(ch) {
		return nil, fmt.Errorf("update: the feed's file name %q does not name a channel (like stable.json)", path.Base(u.Path))
	}
	return u, nil
}

// Disabled returns why updates are off, or nil.
func (c *Client) Disabled() error { return c.disabled }

// Channel is the feed's channel ("stable").
func (c *Client) Channel() string { return c.channel }

// ParseKey reads a minisign public key: the base64 line, or a whole .pub
// file with its comment line.
func ParseKey(s string) (minisign.PublicKey, error) {
	var pk minisign.PublicKey
	err := pk.UnmarshalText([]byte(strings.TrimSpace(s)))
	return pk, err
}

// CheckURL allows https anywhere and http only to a loopback host.
func CheckURL(u *url.URL) error {
	switch {
	case u.Scheme == "https":
		return nil
	case u.Scheme == "http" && hermes.IsLoopbackHost(u.Hostname()):
		return nil
	}
	return fmt.Errorf("%w: %s://%s (https only, or http on this machine)", ErrInsecure, u.Scheme, u.Host)
}

// secureRedirects returns a copy of hc (or a default client) whose
// redirects must pass CheckURL.
func secureRedirects(hc *http.Client) *http.Client {
	var c http.Client
	if hc != nil {
		c = *hc
	} else {
		c.Transport = &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           (&net.Dialer{Timeout: 15 * time.Second}).DialContext,
			TLSHandshakeTimeout:   15 * time.Second,
			ResponseHeaderTimeout: 30 * time.Second,
			IdleConnTimeout:       30 * time.Second,
			ForceAttemptHTTP2:     true,
		}
	}
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) >= 5 {
			return errors.New("update: more than 5 redirects")
		}
		return CheckURL(req.URL)
	}
	return &c
}

// Release is a verified offer for this platform.
type Release struct {
	Version string
	Notes   string
	PubDate string
	Channel string
	// Artifact's URL is absolute, and so are its patches'.
	Artifact Artifact
	// Patch is the artifact's patch from what is installed, which
	// Download tries first; nil when none starts from it.
	Patch *Patch
}

// Check fetches the manifest and its signature and verifies them: the
// signature with a trusted key, its trusted comment naming this channel
// and the manifest's version and expiry, the manifest fresh (not expired,
// not older than the newest accepted: fresh.go), the version newer than
// the running one, an entry for this platform, and this install among
// those the release is rolled out to (rollout.go). When the feed offers
// nothing newer for this install the error wraps ErrUpToDate and the
// release is still returned (it names the latest).
func (c *Client) Check(ctx context.Context) (*Release, error) {
	if c.disabled != nil {
		return nil, c.disabled
	}
	sigURL := *c.manifest
	sigURL.Path += SignatureSuffix
	sig, err := c.get(ctx, &sigURL, MaxSignatureSize)
	if err != nil {
		return nil, err
	}
	data, err := c.get(ctx, c.manifest, MaxManifestSize)
	if err != nil {
		return nil, err
	}
	m, err := c.verify(data, sig)
	if err != nil {
		return nil, err
	}
	c.fresh.Lock()
	err = checkFresh(c.cfg.Dir, c.channel, m, time.Now())
	c.fresh.Unlock()
	if err != nil {
		return nil, err
	}
	return c.release(m)
}

// verify checks the signature before anything of the manifest is read.
func (c *Client) verify(data, sig []byte) (*Manifest, error) {
	signed, err := VerifySignature(c.keys, data, sig)
	if err != nil {
		return nil, err
	}
	if signed.Expires == "" {
		return nil, staleError(fmt.Sprintf("the update feed's signature (%q) names no expiry: it was signed before feeds expired, and must be re-signed (release resign)",
			strings.Join([]string{Product, signed.Channel, signed.Version}, " ")))
	}
	m, err := ParseManifest(data, c.cfg.MaxArtifactSize)
	if err != nil {
		return nil, err
	}
	if err := signed.Binds(c.channel, m); err != nil {
		return nil, err
	}
	return m, nil
}

// release picks this platform's artifact and checks the version is newer.
func (c *Client) release(m *Manifest) (*Release, error) {
	rel := &Release{Version: m.Version, Notes: m.Notes, PubDate: m.PubDate, Channel: c.channel}
	if !Newer(m.Version, c.cfg.Current) {
		return rel, fmt.Errorf("%w: the feed offers %s, this is %s", ErrUpToDate, m.Version, c.cfg.Current)
	}
	a, ok := m.Platforms[c.cfg.Platform]
	var err error
	if !ok {
		return rel, fmt.Errorf("%w: version %s has no build for %s; the feed has it for %s",
			ErrNoBuild, m.Version, describePlatform(c.cfg.Platform), offered(m))
	}
	if err := c.rolledOut(m); err != nil {
		return rel, err
	}
	if a.URL, err = c.resolve(a.URL); err != nil {
		return rel, err
	}
	a.Patches = slices.Clone(a.Patches)
	for i := range a.Patches {
		if a.Patches[i].URL, err = c.resolve(a.Patches[i].URL); err != nil {
			return rel, err
		}
	}
	rel.Artifact, rel.Patch = a, c.choosePatch(a)
	return rel, nil
}

// resolve makes an artifact's or a patch's URL absolute (relative to the
// manifest's) and checks it.
func (c *Client) resolve(raw string) (string, error) {
	ref, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("%w: artifact url %q: %w", ErrFeed, raw, err)
	}
	abs := c.manifest.ResolveReference(ref)
	if err := CheckURL(abs); err != nil {
		return "", err
	}
	return abs.String(), nil
}

// rolledOut refuses a release not yet offered to this install. Without
// an id (no Dir, or one that cannot be read or made: logged) the install
// comes last (bucket 100); the check itself goes on.
func (c *Client) rolledOut(m *Manifest) error {
	bucket := 100
	if c.cfg.Dir != "" && !m.Offered(bucket) {
		if id, err := installID(c.cfg.Dir); err != nil {
			c.cfg.Logger.Warn("update: no install id: this install comes last in a rollout", "err", err)
		} else {
			bucket = bucketOf(id)
		}
	}
	if m.Offered(bucket) {
		return nil
	}
	return fmt.Errorf("%w: %s is being rolled out to %d%% of installs; this install is not yet among them",
		ErrRollout, m.Version, *m.Rollout)
}

// offered lists a manifest's platforms for a message.
func offered(m *Manifest) string {
	if len(m.Platforms) == 0 {
		return "no build at all"
	}
	keys := slices.Sorted(maps.Keys(m.Platforms))
	return strings.Join(keys, ", ")
}

// get fetches a small document, at most limit bytes.
func (c *Client) get(ctx context.Context, u *url.URL, limit int64) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("update: %w", err)
	}
	req.Header.Set("Cache-Control", "no-cache")
	resp, err := c.cfg.HTTP.Do(req)
	if err != nil {
		return nil, fmt.Errorf("update: fetch %s: %w", u.Redacted(), classifyNet(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		kind := ErrFeed
		if resp.StatusCode >= 500 {
			kind = ErrOffline
		}
		return nil, fmt.Errorf("%w: %s answered %s", kind, u.Redacted(), resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("update: read %s: %w", u.Redacted(), classifyNet(err))
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%w: %s is over %d bytes", ErrFeed, u.Redacted(), limit)
	}
	return data, nil
}
