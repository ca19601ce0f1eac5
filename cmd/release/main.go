// Command release makes the update feed's keys, packs the update
// artifacts and signs releases into the feed (the feed's format:
// backend/update/feed.go; the artifact's: backend/update/unit).
//
//	go run ./cmd/release keygen -out DIR
//	go run ./cmd/release pack -platform linux-amd64-webkit41 -version 1.1.0 -out DIST STAGE
//	go run ./cmd/release sign -key DIR/update.key -version 1.1.0 -channel stable -platform linux-amd64-webkit41 \
//	    -url https://example.com/dl/hermes-desktop-1.1.0-linux-amd64-webkit41.unit.tar.zst -out FEEDDIR ARTIFACT
//	go run ./cmd/release resign -key DIR/update.key -channel stable -out FEEDDIR [-expires 14d]
//
// pack (pack.go) writes DIST/hermes-desktop-VERSION-PLATFORM.unit.tar.zst:
// the unit in STAGE (the executable, cores/ and the license files, as the
// install holds them) as its canonical tar, compressed with zstd, and
// prints its digests. It refuses a unit without cores/ of VERSION, or whose
// executable is not the platform's (its name, and on Linux its flavour).
//
// keygen writes DIR/update.key (0600) and DIR/update.pub; the secret key is
// NOT encrypted (keep it offline, or encrypt it with `minisign -C`: sign
// reads encrypted keys with the password in HERMES_DESKTOP_RELEASE_KEY_PASSWORD).
// The public key is what `make build UPDATE_PUBKEY=...` compiles in.
//
// sign adds ARTIFACT (its sha256 and size, and for a unit artifact its
// unit's unit_sha256 and unit_size, read by unpacking it; on Linux and
// Windows only a unit artifact is taken, on macOS the .app bundle's
// .tar.gz) under -platform (default the host's; the Linux desktop builds
// go under linux-amd64-webkit41 and linux-amd64-webkit40, their WebKitGTK
// flavours, and a Linux unit is refused under another flavour's key than
// the one its executable links) to
// FEEDDIR/<channel>.json at -version, and writes the manifest's
// signature, FEEDDIR/<channel>.json.minisig, whose trusted comment is
// "hermes-desktop <channel> <version> <expires>". Signing the same version
// for another platform adds that platform; signing a newer version starts a
// new manifest; an older version is refused. With -releases DIR, sign also
// writes patches from the newest -patches (2) earlier releases in DIR of
// the same platform next to ARTIFACT and lists them (patches.go).
//
// Every signature expires (-expires, default 14 days: installs refuse an
// expired feed), so a feed is re-signed before then: resign signs the
// channel's manifest as it is with a new expiry, no new release, and may
// change its staged rollout (-rollout 0-100, -critical; resign.go). Both
// verify the channel's manifest with the key before signing it again, and
// refuse one changed since it was signed or signed with another key.
//
// gzip IN OUT gzips a file the way a patch expands it (backend/update/delta):
// the release scripts gzip the remote cores and the embedded core with it.
package main

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"aead.dev/minisign"

	"hermes-desktop/backend/update"
	"hermes-desktop/lockfile"
)

// Key file names keygen writes.
const (
	KeyFile    = "update.key"
	PubKeyFile = "update.pub"
)

// EnvKeyPassword holds the password of an encrypted secret key.
const EnvKeyPassword = "HERMES_DESKTOP_RELEASE_KEY_PASSWORD"

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: release keygen -out DIR | release pack -platform P -version V -out DIST DIR | release sign -key KEY -version V -url URL -out FEEDDIR [-releases DIR] ARTIFACT | release resign -key KEY -out FEEDDIR | release gzip IN OUT")
		return 2
	}
	var err error
	switch args[0] {
	case "keygen":
		err = cmdKeygen(args[1:], stdout, stderr)
	case "sign":
		err = cmdSign(args[1:], stdout, stderr)
	case "pack":
		err = cmdPack(args[1:], stdout, stderr)
	case "resign":
		err = cmdResign(args[1:], stdout, stderr)
	case "gzip":
		err = cmdGzip(args[1:])
	default:
		err = fmt.Errorf("unknown command %q (keygen, pack, sign, resign or gzip)", args[0])
	}
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "release:", err)
		return 1
	}
	return 0
}

func cmdKeygen(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("keygen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "directory for update.key (secret, 0600, unencrypted) and update.pub")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" {
		return errors.New("keygen: -out DIR is required")
	}
	pub, priv, err := minisign.GenerateKey(rand.Reader)
	if err != nil {
		return fmt.Errorf("keygen: %w", err)
	}
	secret, _ := priv.MarshalText()
	public, _ := pub.MarshalText()
	if err := os.MkdirAll(*out, 0o700); err != nil {
		return fmt.Errorf("keygen: %w", err)
	}
	if err := writeNew(filepath.Join(*out, KeyFile), secret, 0o600); err != nil {
		return err
	}
	if err := writeNew(filepath.Join(*out, PubKeyFile), append(public, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s (secret, NOT encrypted: keep it offline) and %s\n", filepath.Join(*out, KeyFile), filepath.Join(*out, PubKeyFile))
	fmt.Fprintf(stdout, "build with: make build UPDATE_PUBKEY='%s'\n", pub.String())
	return nil
}

// writeNew creates path, refusing to overwrite: a key is never replaced
// by accident.
func writeNew(path string, data []byte, mode os.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return fmt.Errorf("keygen: %w", err)
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// signOptions are sign's flags.
type signOptions struct {
	key, version, channel, url, out, platform, notes, notesFile, date string
	artifact                                                          string
	feed                                                              feedFlags
	releases                                                          string // earlier releases' artifacts (patches.go)
	patches                                                           int    // how many of them to patch from
}

func cmdSign(args []string, stdout, stderr io.Writer) error {
	var o signOptions
	fs := flag.NewFlagSet("sign", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.key, "key", "", "the secret key (update.key)")
	fs.StringVar(&o.version, "version", "", "the release's version, like 1.1.0")
	fs.StringVar(&o.channel, "channel", update.DefaultChannel, "the channel: the manifest is CHANNEL.json")
	fs.StringVar(&o.url, "url", "", "where the artifact will be downloaded from (https, or relative to the manifest)")
	fs.StringVar(&o.out, "out", "", "the feed directory")
	fs.StringVar(&o.platform, "platform", update.Platform(), "the artifact's platform: linux-amd64-webkit41, linux-amd64-webkit40 (the Linux desktop builds), windows-amd64, ...")
	fs.StringVar(&o.notes, "notes", "", "release notes")
	fs.StringVar(&o.notesFile, "notes-file", "", "read the release notes from this file")
	fs.StringVar(&o.date, "date", "", "publication date, RFC 3339 (default now)")
	o.feed.register(fs)
	fs.StringVar(&o.releases, "releases", "", "the earlier releases' full artifacts: patches from them are written next to ARTIFACT and listed")
	fs.IntVar(&o.patches, "patches", 2, "with -releases, patch from this many of the newest earlier releases of the platform")
	if err := fs.Parse(args); err != nil {
		return err
	}
	o.feed.parsed(fs)
	if fs.NArg() != 1 || o.key == "" || o.version == "" || o.url == "" || o.out == "" {
		return errors.New("sign: -key, -version, -url, -out and one ARTIFACT are required")
	}
	if o.patches > update.MaxPatches {
		return fmt.Errorf("sign: -patches %d: a manifest lists at most %d patches an artifact", o.patches, update.MaxPatches)
	}
	o.artifact = fs.Arg(0)
	manifest, m, err := sign(o, stdout)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "signed %s %s (%s) into %s: expires %s%s\n", o.channel, o.version, o.platform, manifest, m.Expires, describeRollout(m))
	return nil
}

// sign updates the channel's manifest with the artifact and signs it. The
// patches are made last, once the manifest is known to be signable: a
// refused sign leaves no .patch files behind.
func sign(o signOptions, log io.Writer) (string, *update.Manifest, error) {
	if !update.ValidChannel(o.channel) {
		return "", nil, fmt.Errorf("sign: %q is not a channel name", o.channel)
	}
	priv, err := readKey(o.key)
	if err != nil {
		return "", nil, err
	}
	art, err := describeArtifact(o)
	if err != nil {
		return "", nil, err
	}
	path := filepath.Join(o.out, o.channel+".json")
	m, prev, err := nextManifest(path, o, priv)
	if err != nil {
		return "", nil, err
	}
	if err := o.feed.apply(m, prev, time.Now()); err != nil {
		return "", nil, fmt.Errorf("sign: %w", err)
	}
	m.Platforms[o.platform] = art
	if err := m.Validate(update.DefaultMaxArtifactSize); err != nil {
		return "", nil, fmt.Errorf("sign: %w", err)
	}
	if art.Patches, err = writePatches(o, art, log); err != nil {
		return "", nil, err
	}
	m.Platforms[o.platform] = art
	if err := writeFeed(path, priv, o.channel, m); err != nil {
		return "", nil, fmt.Errorf("sign: %w", err)
	}
	return path, m, nil
}

// writeFeed signs m and writes it and its signature at path.
func writeFeed(path string, priv minisign.PrivateKey, channel string, m *update.Manifest) error {
	data, sig, err := update.SignManifest(priv, channel, m)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	// The signature first: a reader that sees the new manifest before its
	// signature refuses it, and the other order would offer nothing at all
	// for a moment either way. Both are atomic renames.
	if err := writeAtomic(path+update.SignatureSuffix, sig); err != nil {
		return err
	}
	return writeAtomic(path, data)
}

// nextManifest loads the channel's manifest when it is the same version,
// starts a new one for a newer version, and refuses an older one; prev is
// the manifest there was (nil for none), verified (loadManifest).
func nextManifest(path string, o signOptions, priv minisign.PrivateKey) (m, prev *update.Manifest, err error) {
	if _, err := update.ParseVersion(o.version); err != nil {
		return nil, nil, fmt.Errorf("sign: %w", err)
	}
	m = &update.Manifest{Version: o.version, PubDate: o.date, Notes: o.notes, Platforms: map[string]update.Artifact{}}
	if m.PubDate == "" {
		m.PubDate = time.Now().UTC().Format(time.RFC3339)
	}
	if o.notesFile != "" {
		notes, err := os.ReadFile(o.notesFile)
		if err != nil {
			return nil, nil, fmt.Errorf("sign: %w", err)
		}
		m.Notes = string(notes)
	}
	if prev, err = loadManifest(path, o.channel, priv); err != nil {
		return nil, nil, fmt.Errorf("sign: %w", err)
	}
	if prev == nil {
		return m, nil, nil
	}
	switch {
	case prev.Version == o.version:
		m.Platforms = prev.Platforms
		if o.notes == "" && o.notesFile == "" {
			m.Notes = prev.Notes
		}
	case update.Newer(prev.Version, o.version):
		return nil, nil, fmt.Errorf("sign: %s already offers %s, newer than %s: a feed never goes back", path, prev.Version, o.version)
	}
	return m, prev, nil
}

// loadManifest reads the channel's manifest at path, nil when there is
// none, and verifies it before anything of it is signed again: its
// signature by the key's public half, and a trusted comment naming the
// channel, the manifest's version and its expiry (none in an old feed's,
// which resign gives one). A manifest edited since it was signed, or
// signed with another key, is refused: signing it would vouch for what
// nobody signed.
func loadManifest(path, channel string, priv minisign.PrivateKey) (*update.Manifest, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	sig, err := os.ReadFile(path + update.SignatureSuffix)
	if err != nil {
		return nil, fmt.Errorf("the existing %s has no signature to check (%v): remove it to start the feed over", path, err)
	}
	pub, _ := priv.Public().(minisign.PublicKey)
	signed, err := update.VerifySignature([]minisign.PublicKey{pub}, data, sig)
	if err != nil {
		return nil, fmt.Errorf("the existing %s does not verify with this key: it was changed since it was signed, or signed with another key (%w); remove it and its signature to start the feed over with this key", path, err)
	}
	m, err := update.ParseManifest(data, update.DefaultMaxArtifactSize)
	if err == nil {
		err = signed.Binds(channel, m)
	}
	if err != nil {
		return nil, fmt.Errorf("the existing %s: %w", path, err)
	}
	return m, nil
}

// describe reads the artifact's size and sha256.
func describe(path, url string) (update.Artifact, error) {
	f, err := os.Open(path)
	if err != nil {
		return update.Artifact{}, fmt.Errorf("sign: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return update.Artifact{}, fmt.Errorf("sign: read %s: %w", path, err)
	}
	return update.Artifact{URL: url, SHA256: hex.EncodeToString(h.Sum(nil)), Size: n}, nil
}

// readKey reads a secret key: unencrypted (keygen's), or encrypted with
// the password in EnvKeyPassword (minisign -G's).
func readKey(path string) (minisign.PrivateKey, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return minisign.PrivateKey{}, fmt.Errorf("sign: %w", err)
	}
	if minisign.IsEncrypted(data) {
		pw := os.Getenv(EnvKeyPassword)
		if pw == "" {
			return minisign.PrivateKey{}, fmt.Errorf("sign: %s is encrypted: put its password in %s", path, EnvKeyPassword)
		}
		return minisign.DecryptKey(pw, data)
	}
	var k minisign.PrivateKey
	if err := k.UnmarshalText(data); err != nil {
		return k, fmt.Errorf("sign: %s: %w", path, err)
	}
	return k, nil
}

// writeAtomic replaces path, mode 0644, as lockfile.WriteAtomic does.
func writeAtomic(path string, data []byte) error {
	err := lockfile.WriteAtomic(path, 0o644, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
	if err != nil {
		return fmt.Errorf("sign: write %s: %w", path, err)
	}
	return nil
}
