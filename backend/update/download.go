package update

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"time"

	"hermes-desktop/backend/update/transfer"
	"hermes-desktop/backend/update/unit"
)

// ArtifactName is the downloaded file's name in <Dir>/<version>/; the
// download in progress is ArtifactName + ".part".
const ArtifactName = "artifact"

// maxStalls is how many attempts in a row may end without a byte before a
// download gives up.
const maxStalls = 3

// Progress is a download's state, reported as it goes.
type Progress = transfer.Progress

// errRetry marks an attempt that ended early but may be resumed.
var errRetry = errors.New("update: download interrupted")

// Download fetches rel's artifact into <Dir>/<version>/artifact (directory
// 0700, file 0600) and verifies its size and sha256; a unit artifact is
// then unpacked into <Dir>/<version>/unit.tar and checked against the
// manifest's unit_sha256 and unit_size, and that file is returned (a
// verified unit.tar found there is returned at once). With a Patch, it
// first tries that (patch.go), which makes the unit tar (or, for another
// artifact, the file) directly, and falls back to the full artifact on any
// failure but a cancelled ctx, saying why in the log. A partial file left by
// an earlier attempt is resumed with an HTTP Range request; an attempt
// that breaks off is resumed too. A file already downloaded and verified is
// returned at once. progress (may be nil) is called from this goroutine at
// most every 100 ms, and once at the end.
func (c *Client) Download(ctx context.Context, rel *Release, progress func(Progress)) (string, error) {
	dir, err := c.versionDir(rel.Version)
	if err != nil {
		return "", err
	}
	final := filepath.Join(dir, ArtifactName)
	m := transfer.NewMeter(rel.Artifact.Size, progress)
	if tar := filepath.Join(dir, UnitTarName); rel.Artifact.IsUnit() && unit.VerifyFile(tar, rel.Artifact.Unit()) == nil {
		m.Finish(rel.Artifact.Size)
		return tar, nil
	}
	if verifyFile(final, rel.Artifact) == nil {
		m.Finish(rel.Artifact.Size)
		return unpackUnit(final, rel.Artifact)
	}
	if rel.Patch != nil && c.installed != nil {
		path, err := c.downloadPatch(ctx, dir, rel, progress)
		if err == nil || ctx.Err() != nil {
			return path, err
		}
		c.cfg.Logger.Warn("update: the patch did not work; downloading the full artifact", "version", rel.Version, "err", err)
	}
	if err := c.fetchFile(ctx, rel.Artifact, final, m); err != nil {
		return "", err
	}
	m.Finish(rel.Artifact.Size)
	return unpackUnit(final, rel.Artifact)
}

// fetchFile downloads a into final, through final.part, resumed and
// verified. (Whether final is already there is Download's to check, once.)
func (c *Client) fetchFile(ctx context.Context, a Artifact, final string, m *transfer.Meter) error {
	part := final + ".part"
	d := transfer.NewHash()
	if err := c.fetchAll(ctx, a, part, m, d); err != nil {
		return err
	}
	if err := checksum(d.Verify(part, transfer.Sum{SHA256: a.SHA256, Size: a.Size})); err != nil {
		os.Remove(part) // ours, and wrong: the next try starts over
		return err
	}
	if err := os.Rename(part, final); err != nil {
		return fmt.Errorf("update: %w", err)
	}
	return nil
}

// versionDir creates <Dir>/<version>, private.
func (c *Client) versionDir(version string) (string, error) {
	if c.cfg.Dir == "" {
		return "", errors.New("update: no download directory")
	}
	v, err := ParseVersion(version)
	if err != nil {
		return "", err
	}
	// The name is rebuilt from the checked parts, never the string as the
	// feed spelled it: no separator or ".." can reach the path.
	dir := filepath.Join(c.cfg.Dir, v.String())
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("update: %w", classifyWrite(err))
	}
	for _, d := range []string{c.cfg.Dir, dir} {
		if err := os.Chmod(d, 0o700); err != nil {
			return "", fmt.Errorf("update: %w", err)
		}
	}
	return dir, nil
}

// fetchAll runs attempts until part holds the whole artifact.
func (c *Client) fetchAll(ctx context.Context, a Artifact, part string, m *transfer.Meter, d *transfer.Hash) error {
	stalls := 0
	for {
		have, err := partSize(part, a.Size)
		if err != nil {
			return err
		}
		if have == a.Size {
			return nil
		}
		m.Resume(have)
		got, err := c.fetchFrom(ctx, a, part, have, m, d)
		switch {
		case err == nil:
			continue
		case !errors.Is(err, errRetry) || ctx.Err() != nil:
			return err
		case got > 0:
			stalls = 0
			continue // broke off after some bytes: resume at once
		}
		if stalls++; stalls > maxStalls {
			if !errors.Is(err, ErrOffline) {
				err = fmt.Errorf("%w: %w", ErrOffline, err)
			}
			return err
		}
		if err := sleepCtx(ctx, time.Duration(stalls)*500*time.Millisecond); err != nil {
			return err
		}
	}
}

// partSize is the length of the partial file; one longer than the
// artifact cannot be ours and is emptied.
func partSize(part string, size int64) (int64, error) {
	fi, err := os.Stat(part)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return 0, nil
	case err != nil:
		return 0, fmt.Errorf("update: %w", err)
	case fi.Size() > size:
		return 0, os.Truncate(part, 0)
	}
	return fi.Size(), nil
}

// fetchFrom runs one attempt: GET from byte have on, appended to part. It
// returns the bytes it added; an errRetry error means it may be resumed.
func (c *Client) fetchFrom(ctx context.Context, a Artifact, part string, have int64, m *transfer.Meter, d *transfer.Hash) (int64, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stall := time.AfterFunc(c.cfg.StallTimeout, func() { cancel(fmt.Errorf("%w: nothing received for %v", errRetry, c.cfg.StallTimeout)) })
	defer stall.Stop()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.URL, nil)
	if err != nil {
		return 0, fmt.Errorf("update: %w", err)
	}
	if have > 0 {
		req.Header.Set("Range", "bytes="+strconv.FormatInt(have, 10)+"-")
	}
	resp, err := c.cfg.HTTP.Do(req)
	if err != nil {
		return 0, attemptError(ctx, fmt.Errorf("update: download: %w", classifyNet(err)))
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusRequestedRangeNotSatisfiable {
		// Our partial file does not fit the server's: start over.
		if err := os.Truncate(part, 0); err != nil {
			return 0, fmt.Errorf("update: %w", err)
		}
		return 0, fmt.Errorf("%w: the server refused to resume at byte %d", errRetry, have)
	}
	from, err := startOffset(resp, a.Size, have)
	if err != nil {
		return 0, err
	}
	f, err := os.OpenFile(part, os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil {
		return 0, fmt.Errorf("update: %w", classifyWrite(err))
	}
	defer f.Close()
	if err := f.Truncate(from); err != nil {
		return 0, fmt.Errorf("update: %w", classifyWrite(err))
	}
	if _, err := f.Seek(from, io.SeekStart); err != nil {
		return 0, fmt.Errorf("update: %w", err)
	}
	m.Resume(from)
	if err := d.Seek(part, from); err != nil {
		return 0, err
	}
	hw := d.Start()
	n, err := copyBody(io.MultiWriter(f, hw), resp.Body, a.Size-from, m, func() { stall.Reset(c.cfg.StallTimeout) })
	d.Stop(hw)
	if err == nil {
		err = f.Sync()
	}
	if err != nil {
		return n, attemptError(ctx, err)
	}
	return n, nil
}

// attemptError prefers the reason the attempt's context was cancelled (a
// stall) over the transport error it caused.
func attemptError(ctx context.Context, err error) error {
	if cause := context.Cause(ctx); errors.Is(cause, errRetry) {
		return cause
	}
	if errors.Is(err, ErrOffline) {
		return errors.Join(errRetry, err)
	}
	return err
}

var contentRange = regexp.MustCompile(`^bytes (\d+)-(\d+)/(\d+|\*)$`)

// startOffset checks the answer and says where its body starts in the file.
func startOffset(resp *http.Response, size, have int64) (int64, error) {
	switch resp.StatusCode {
	case http.StatusOK:
		if resp.ContentLength >= 0 && resp.ContentLength != size {
			return 0, fmt.Errorf("%w: the server's file is %d bytes, the manifest says %d", ErrChecksum, resp.ContentLength, size)
		}
		return 0, nil // no range support: start over
	case http.StatusPartialContent:
		m := contentRange.FindStringSubmatch(resp.Header.Get("Content-Range"))
		if m == nil {
			return 0, fmt.Errorf("%w: bad Content-Range %q", ErrFeed, resp.Header.Get("Content-Range"))
		}
		start, _ := strconv.ParseInt(m[1], 10, 64)
		if m[3] != "*" {
			if total, _ := strconv.ParseInt(m[3], 10, 64); total != size {
				return 0, fmt.Errorf("%w: the server's file is %d bytes, the manifest says %d", ErrChecksum, total, size)
			}
		}
		if start != have {
			return 0, fmt.Errorf("%w: asked for bytes from %d, got from %d", ErrFeed, have, start)
		}
		return start, nil
	}
	kind := ErrFeed
	if resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests {
		kind = errors.Join(errRetry, ErrOffline)
	}
	return 0, fmt.Errorf("%w: the artifact's server answered %s", kind, resp.Status)
}

// copyBody copies at most max bytes from body to f; more is an error (the
// file is not the manifest's). A body that ends early asks for a resume.
func copyBody(f io.Writer, body io.Reader, max int64, m *transfer.Meter, tick func()) (int64, error) {
	buf := make([]byte, 256<<10)
	var n int64
	for {
		k, rerr := body.Read(buf)
		if k > 0 {
			if n+int64(k) > max {
				return n, fmt.Errorf("%w: the server sent more than the manifest's %d bytes", ErrChecksum, m.Total())
			}
			if _, err := f.Write(buf[:k]); err != nil {
				return n, fmt.Errorf("update: write the download: %w", classifyWrite(err))
			}
			n += int64(k)
			m.Add(int64(k))
			tick()
		}
		switch {
		case rerr == io.EOF && n == max:
			return n, nil
		case rerr == io.EOF:
			return n, fmt.Errorf("%w: the connection ended after %d of %d bytes", errRetry, n, max)
		case rerr != nil:
			return n, fmt.Errorf("%w: %w", errRetry, classifyNet(rerr))
		}
	}
}

// verifyFile checks a downloaded file against a: its size and sha256.
func verifyFile(path string, a Artifact) error {
	return checksum(transfer.VerifyFile(path, transfer.Sum{SHA256: a.SHA256, Size: a.Size}))
}

// checksum gives a file that is not the manifest's the kind callers
// branch on.
func checksum(err error) error {
	if errors.Is(err, transfer.ErrMismatch) {
		return fmt.Errorf("%w: %w", ErrChecksum, err)
	}
	return err
}

// sleepCtx waits d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
