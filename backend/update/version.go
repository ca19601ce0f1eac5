package update

import "hermes-desktop/platform/semver"

// Version is a semantic version (platform/semver): the running version,
// a feed's, a download directory's name.
type Version = semver.Version

// ParseVersion parses s, or says why it is not a release version.
func ParseVersion(s string) (Version, error) { return semver.Parse(s) }

// Newer reports whether version a is strictly newer than b; unparsable
// versions are never newer.
func Newer(a, b string) bool { return semver.Newer(a, b) }
