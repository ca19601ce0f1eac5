package delta

import (
	"fmt"
	"net/url"
	"regexp"
)

// In the update feed (backend/update/feed.go), an artifact lists the
// patches that rebuild it from earlier releases, inside the signed
// manifest:
//
//	"patches": [{"from": "<hex>", "url": "...", "sha256": "<hex>", "size": N}, ...]
//
// from is the SHA-256 of the release a patch starts from: the canonical
// bytes of that release as an install holds it; sha256 and size are the
// patch file's.

// MaxPatches bounds the patches one artifact lists.
const MaxPatches = 16

// Patch is a patch from an earlier release to an artifact's.
type Patch struct {
	// From is the SHA-256 (lowercase hex) of the installed release the
	// patch applies to.
	From string `json:"from"`
	// URL is absolute, or relative to the manifest's URL.
	URL string `json:"url"`
	// SHA256 and Size are the patch file's.
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
}

var sha256Pattern = regexp.MustCompile(`^[0-9a-f]{64}$`)

// ValidatePatches checks an artifact's patches: digests, sizes (at most
// maxSize) and URLs as an artifact's, at most one per starting point.
func ValidatePatches(ps []Patch, maxSize int64) error {
	if len(ps) > MaxPatches {
		return fmt.Errorf("%d patches, at most %d", len(ps), MaxPatches)
	}
	seen := map[string]bool{}
	for i, p := range ps {
		var err error
		switch {
		case !sha256Pattern.MatchString(p.From):
			err = fmt.Errorf("from %q is not 64 lowercase hex digits", p.From)
		case seen[p.From]:
			err = fmt.Errorf("a second patch from %s", p.From)
		case p.URL == "":
			err = fmt.Errorf("no url")
		case !sha256Pattern.MatchString(p.SHA256):
			err = fmt.Errorf("sha256 %q is not 64 lowercase hex digits", p.SHA256)
		case p.Size <= 0 || p.Size > maxSize:
			err = fmt.Errorf("size %d is not between 1 and the limit of %d bytes", p.Size, maxSize)
		}
		if _, uerr := url.Parse(p.URL); err == nil && uerr != nil {
			err = fmt.Errorf("url %q: %w", p.URL, uerr)
		}
		if err != nil {
			return fmt.Errorf("patch %d: %w", i, err)
		}
		seen[p.From] = true
	}
	return nil
}

// Pick is the patch from the release installed (its SHA-256) when one
// is smaller than the full download, full bytes; nil otherwise.
func Pick(ps []Patch, installed string, full int64) *Patch {
	for _, p := range ps {
		if p.From == installed && p.Size < full {
			return &p
		}
	}
	return nil
}
