package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"hermes-desktop/backend/update"
)

// DefaultExpiry is how long a signature is accepted unless -expires says
// otherwise: a feed must be re-signed (resign) at least this often, or
// installs stop updating.
const DefaultExpiry = 14 * 24 * time.Hour

// feedFlags are the manifest's top-level flags that sign and resign share:
// the signature's expiry and the staged rollout.
type feedFlags struct {
	expires  string // a duration from now ("14d", "36h") or an RFC 3339 time
	rollout  int
	critical bool
	given    map[string]bool // the flags given on the command line, by name
}

func (f *feedFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.expires, "expires", fmt.Sprintf("%dd", DefaultExpiry/(24*time.Hour)), "when the signature expires: a duration from now (14d, 36h) or an RFC 3339 time; installs refuse the feed after it, so re-sign before (release resign)")
	fs.IntVar(&f.rollout, "rollout", 100, "the share of installs offered this release, 0-100; the same installs come first every release (default: the manifest's for the same version, else 100)")
	fs.BoolVar(&f.critical, "critical", false, "offer this release to every install at once, whatever -rollout says (default: the manifest's for the same version, else false)")
}

// parsed notes which flags were given, after fs.Parse.
func (f *feedFlags) parsed(fs *flag.FlagSet) {
	f.given = map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { f.given[fl.Name] = true })
}

// apply sets m's expiry, and its rollout and critical flag: those given,
// else prev's when prev is the same version (another platform signed, or
// a re-signature), else none (offered to all). An expiry earlier than
// prev's for the same version is refused: installs that accepted prev
// would take the new manifest for a replay.
func (f *feedFlags) apply(m, prev *update.Manifest, now time.Time) error {
	exp, err := parseExpires(f.expires, now)
	if err != nil {
		return err
	}
	m.Expires = update.FormatExpiry(exp)
	if prev != nil && prev.Version == m.Version {
		m.Rollout, m.Critical = prev.Rollout, prev.Critical
		old, err := update.ParseExpiry(prev.Expires)
		switch {
		case err != nil: // an old feed's, without one
		case exp.Before(old):
			return fmt.Errorf("the new expiry %s is earlier than the current manifest's %s: installs that accepted it would refuse this one as a replay", m.Expires, prev.Expires)
		case !exp.After(old):
			// Signed within the same second: one second later, so that
			// installs take this manifest as the newer and the one it
			// replaces (another rollout, say) as a replay.
			m.Expires = update.FormatExpiry(old.Add(time.Second))
		}
	}
	if f.given["rollout"] {
		if f.rollout < 0 || f.rollout > 100 {
			return fmt.Errorf("-rollout %d is not a share from 0 to 100", f.rollout)
		}
		m.Rollout = &f.rollout
	}
	if f.given["critical"] {
		m.Critical = f.critical
	}
	return nil
}

// parseExpires reads -expires: days ("14d"), a Go duration ("36h"), or an
// RFC 3339 time; it must be in the future.
func parseExpires(s string, now time.Time) (time.Time, error) {
	var d time.Duration
	var err error
	switch {
	case strings.HasSuffix(s, "d"):
		var days int
		days, err = strconv.Atoi(strings.TrimSuffix(s, "d"))
		d = time.Duration(days) * 24 * time.Hour
	case strings.ContainsAny(s, "T:"):
		t, perr := time.Parse(time.RFC3339, s)
		if perr != nil {
			return time.Time{}, fmt.Errorf("-expires %q: %w", s, perr)
		}
		d = t.Sub(now)
	default:
		d, err = time.ParseDuration(s)
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("-expires %q is not a duration (14d, 36h) or an RFC 3339 time", s)
	}
	if d < time.Minute {
		return time.Time{}, fmt.Errorf("-expires %q is not in the future", s)
	}
	return now.Add(d), nil
}

// resignOptions are resign's flags.
type resignOptions struct {
	key, channel, out string
	feed              feedFlags
}

// cmdResign signs the channel's current manifest again with a new expiry
// (and, if given, another rollout), without a new release: run it before
// the signature expires.
func cmdResign(args []string, stdout, stderr io.Writer) error {
	var o resignOptions
	fs := flag.NewFlagSet("resign", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.key, "key", "", "the secret key (update.key)")
	fs.StringVar(&o.channel, "channel", update.DefaultChannel, "the channel: the manifest is CHANNEL.json")
	fs.StringVar(&o.out, "out", "", "the feed directory")
	o.feed.register(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	o.feed.parsed(fs)
	if fs.NArg() != 0 || o.key == "" || o.out == "" {
		return errors.New("resign: -key and -out are required, and nothing else")
	}
	m, path, err := resign(o, time.Now())
	if err != nil {
		return fmt.Errorf("resign: %w", err)
	}
	fmt.Fprintf(stdout, "re-signed %s %s in %s: expires %s%s\n", o.channel, m.Version, path, m.Expires, describeRollout(m))
	return nil
}

// resign re-signs the channel's manifest as it is, but its expiry and
// rollout, once its signature verifies with the key (loadManifest).
func resign(o resignOptions, now time.Time) (*update.Manifest, string, error) {
	if !update.ValidChannel(o.channel) {
		return nil, "", fmt.Errorf("%q is not a channel name", o.channel)
	}
	priv, err := readKey(o.key)
	if err != nil {
		return nil, "", err
	}
	path := filepath.Join(o.out, o.channel+".json")
	prev, err := loadManifest(path, o.channel, priv)
	if err != nil {
		return nil, "", err
	}
	if prev == nil {
		return nil, "", fmt.Errorf("nothing to re-sign: no %s", path)
	}
	m := *prev
	if err := o.feed.apply(&m, prev, now); err != nil {
		return nil, "", err
	}
	return &m, path, writeFeed(path, priv, o.channel, &m)
}

// describeRollout says to whom a manifest offers its release, for the
// tool's output.
func describeRollout(m *update.Manifest) string {
	switch {
	case m.Critical:
		return ", critical: offered to every install"
	case m.Rollout != nil && *m.Rollout < 100:
		return fmt.Sprintf(", offered to %d%% of installs", *m.Rollout)
	}
	return ""
}
