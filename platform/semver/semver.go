// Package semver reads and orders semantic versions (semver.org 2.0): the
// running version, a feed's, a download directory's name. A version that
// parses is made of checked parts only, so its String is safe as a file
// name and in a shell command.
package semver

import (
	"fmt"
	"strconv"
	"strings"
)

// Version is a semantic version (semver.org 2.0): MAJOR.MINOR.PATCH with an
// optional -PRERELEASE and +BUILD, whose identifiers are both
// [0-9A-Za-z-]+, dot-separated; BUILD is ignored in comparisons. A leading
// "v" is accepted.
type Version struct {
	Major, Minor, Patch uint64
	// Pre is the pre-release identifiers ("rc", "1" for -rc.1); empty for
	// a release, which is newer than any of its pre-releases.
	Pre []string
	// Build is the build metadata's identifiers ("linux", "5" for
	// +linux.5); empty for none.
	Build []string
}

// Parse parses s, or says why it is not a release version.
func Parse(s string) (Version, error) {
	var v Version
	core := strings.TrimPrefix(s, "v")
	core, build, hasBuild := strings.Cut(core, "+")
	core, pre, hasPre := strings.Cut(core, "-")
	parts := strings.Split(core, ".")
	if len(parts) != 3 {
		return v, fmt.Errorf("semver: %q is not a version like 1.2.3", s)
	}
	nums := []*uint64{&v.Major, &v.Minor, &v.Patch}
	for i, p := range parts {
		n, err := parseNumeric(p)
		if err != nil {
			return v, fmt.Errorf("semver: %q is not a version like 1.2.3: %w", s, err)
		}
		*nums[i] = n
	}
	var err error
	if hasPre {
		if v.Pre, err = identifiers(pre); err != nil {
			return v, fmt.Errorf("semver: %q has a bad pre-release part: %w", s, err)
		}
	}
	// The build part was once left unchecked, and a version reaches a path
	// (<state>/updates/<version>) and a copy-paste hint (the .deb's): it
	// follows the pre-release's rules, so "/", ".." or ";" never pass.
	if hasBuild {
		if v.Build, err = identifiers(build); err != nil {
			return v, fmt.Errorf("semver: %q has a bad build part: %w", s, err)
		}
	}
	return v, nil
}

// identifiers splits a pre-release or build part into its identifiers:
// each non-empty, of [0-9A-Za-z-] only.
func identifiers(part string) ([]string, error) {
	ids := strings.Split(part, ".")
	for _, id := range ids {
		if id == "" || strings.Trim(id, "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-") != "" {
			return nil, fmt.Errorf("%q is not dot-separated identifiers of [0-9A-Za-z-]", part)
		}
	}
	return ids, nil
}

// parseNumeric reads a numeric identifier: digits, no leading zero.
func parseNumeric(p string) (uint64, error) {
	if p == "" || (len(p) > 1 && p[0] == '0') {
		return 0, fmt.Errorf("bad number %q", p)
	}
	return strconv.ParseUint(p, 10, 64)
}

// String formats v without a leading "v". It is made of checked parts
// only (digits, dots, [0-9A-Za-z-] identifiers, "-" and "+"), so it is
// safe as a file name and in a shell command.
func (v Version) String() string {
	s := fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch)
	if len(v.Pre) > 0 {
		s += "-" + strings.Join(v.Pre, ".")
	}
	if len(v.Build) > 0 {
		s += "+" + strings.Join(v.Build, ".")
	}
	return s
}

// Compare returns -1, 0 or +1 as v is older than, as old as, or newer
// than w, by semver precedence.
func (v Version) Compare(w Version) int {
	for _, c := range [][2]uint64{{v.Major, w.Major}, {v.Minor, w.Minor}, {v.Patch, w.Patch}} {
		if c[0] != c[1] {
			return cmpUint(c[0], c[1])
		}
	}
	switch {
	case len(v.Pre) == 0 && len(w.Pre) == 0:
		return 0
	case len(v.Pre) == 0:
		return 1 // a release is newer than its pre-releases
	case len(w.Pre) == 0:
		return -1
	}
	for i := 0; i < len(v.Pre) && i < len(w.Pre); i++ {
		if c := comparePre(v.Pre[i], w.Pre[i]); c != 0 {
			return c
		}
	}
	return cmpUint(uint64(len(v.Pre)), uint64(len(w.Pre)))
}

// comparePre compares two pre-release identifiers: numbers numerically and
// below words, words in ASCII order.
func comparePre(a, b string) int {
	an, aerr := strconv.ParseUint(a, 10, 64)
	bn, berr := strconv.ParseUint(b, 10, 64)
	switch {
	case aerr == nil && berr == nil:
		return cmpUint(an, bn)
	case aerr == nil:
		return -1
	case berr == nil:
		return 1
	}
	return strings.Compare(a, b)
}

func cmpUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Newer reports whether version a is strictly newer than b; unparsable
// versions are never newer.
func Newer(a, b string) bool {
	va, err := Parse(a)
	if err != nil {
		return false
	}
	vb, err := Parse(b)
	return err == nil && va.Compare(vb) > 0
}
