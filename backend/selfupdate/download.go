package selfupdate

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"hermes-desktop/backend/update"
)

// offer is the latest verified release the feed offered and its
// download: "Update available", then "Update ready".
type offer struct {
	feed   *feedLine
	status *statusBoard
	cfg    *Config
	dir    string // <state>/updates

	mu       sync.Mutex // guards release and artifact
	release  *update.Release
	artifact string // release's verified download; "" until then
}

// forget drops what the feed offered: another feed is in use.
func (o *offer) forget() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.release, o.artifact = nil, ""
}

// check asks the feed and records the answer in the status. A version
// marked bad is answered as "up to date" (it is never offered again; a
// newer one is). Call with the semaphore held.
func (o *offer) check(ctx context.Context) (*update.Release, error) {
	o.status.set(func(i *update.Info) { i.State, i.Error, i.Reason = update.StateChecking, "", "" })
	rel, err := o.feed.load().Check(ctx)
	if err == nil {
		if bad, ok := update.IsBad(o.dir, rel.Version); ok {
			err = fmt.Errorf("%w: %s failed after an earlier update (%s) and is not offered again", update.ErrUpToDate, bad.Version, bad.Reason)
		}
	}
	now, skipped := time.Now(), update.Skipped(o.dir)
	o.mu.Lock()
	defer o.status.publish() // after the unlock below
	defer o.mu.Unlock()
	o.status.set(func(i *update.Info) {
		i.CheckedAt, i.Skipped = &now, skipped
		if rel != nil {
			i.Latest, i.Notes = rel.Version, rel.Notes
		}
		o.record(i, rel, err)
	})
	return rel, err
}

// record puts the feed's answer in the status and keeps a new offer. Call
// with mu held.
func (o *offer) record(i *update.Info, rel *update.Release, err error) {
	i.Download = nil // only an offer downloads something
	switch {
	case errors.Is(err, update.ErrDisabled):
		i.State, i.Error, i.Reason, i.BuildOff = update.StateOff, err.Error(), update.Reason(err), errors.Is(err, update.ErrBuildOff)
	case errors.Is(err, update.ErrUpToDate):
		i.State, i.Error, i.Reason = update.StateIdle, "", update.Reason(err)
		if rel != nil && update.Newer(rel.Version, o.cfg.Version) {
			i.Error = err.Error() // newer, but not offered: say why
		}
	case err != nil:
		i.State, i.Error, i.Reason = update.StateFailed, err.Error(), update.Reason(err)
	case o.artifact != "" && sameArtifact(o.release, rel):
		i.State, i.Download = update.StateReady, downloadOf(rel) // downloaded already
	default:
		if !sameArtifact(o.release, rel) {
			o.artifact = "" // verified against another manifest's digest
		}
		o.release = rel
		d := downloadOf(rel)
		i.State, i.Bytes, i.Total, i.Speed, i.Download = update.StateAvailable, 0, d.Size, 0, d
	}
}

// sameArtifact reports whether two offers name the same file: the same
// version with the same digest (a feed may re-sign a version with another
// artifact, another flavour's key filled in, say).
func sameArtifact(a, b *update.Release) bool {
	return a != nil && b != nil && a.Version == b.Version && a.Artifact.SHA256 == b.Artifact.SHA256
}

// prepare downloads and verifies the offered release: "Update ready".
func (o *offer) prepare(ctx context.Context) error {
	if err := o.feed.acquire(ctx); err != nil {
		return err
	}
	defer o.feed.release()
	_, err := o.download(ctx)
	return err
}

// download fetches the offered release (or finds it on disk), publishing
// progress. Call with the semaphore held.
func (o *offer) download(ctx context.Context) (string, error) {
	o.mu.Lock()
	rel, artifact := o.release, o.artifact
	o.mu.Unlock()
	if rel == nil {
		return "", fmt.Errorf("update: %w: nothing to download: check first", update.ErrUpToDate)
	}
	if artifact != "" {
		return artifact, nil
	}
	o.status.set(func(i *update.Info) {
		i.State, i.Error, i.Reason, i.Total = update.StateDownloading, "", "", downloadOf(rel).Size
	})
	update.PruneDownloads(o.dir, rel.Version)
	path, err := o.feed.load().Download(ctx, rel, func(p update.Progress) {
		o.status.change(func(i *update.Info) { i.Bytes, i.Total, i.Speed = p.Bytes, p.Total, p.Speed })
	})
	if err != nil {
		o.status.change(func(i *update.Info) { i.State, i.Error, i.Reason = update.StateFailed, err.Error(), update.Reason(err) })
		return "", err
	}
	o.mu.Lock()
	o.artifact = path
	o.mu.Unlock()
	o.status.change(func(i *update.Info) { i.State = update.StateReady })
	o.cfg.Logger.Info("update: downloaded and verified", "version", rel.Version, "path", path)
	return path, nil
}

// downloadOf is what downloading rel fetches: its patch from the installed
// unit, or the full artifact.
func downloadOf(rel *update.Release) *update.Download {
	if rel.Patch != nil {
		return &update.Download{Size: rel.Patch.Size, Full: rel.Artifact.Size, Patch: true}
	}
	return &update.Download{Size: rel.Artifact.Size, Full: rel.Artifact.Size}
}
