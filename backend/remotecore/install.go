package remotecore

import (
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
	"time"

	"hermes-desktop/contract/muxwire"
)

// Remote runs one short command on a remote host. backend/ssh's Host is
// the real one (remote_test.go asserts it); other tests run /bin/sh
// locally.
type Remote interface {
	// Run runs argv (a program and its arguments, quoted for the remote
	// shell by the implementation) with stdin as its standard input (nil:
	// none) and returns its stdout. The command is killed on the remote
	// when timeout ends, and Run returns an error then.
	Run(ctx context.Context, timeout time.Duration, stdin io.Reader, argv ...string) ([]byte, error)
}

// Options bound Install's remote commands. The zero value is the defaults.
type Options struct {
	// ProbeTimeout bounds `uname -sm` and the digest check. Zero: 20 s.
	ProbeTimeout time.Duration
	// UploadTimeout bounds the upload of one core (about 4.5 MB gzip'd,
	// 11 MB where the remote has no gzip). Zero: 5 minutes.
	UploadTimeout time.Duration
}

func (o Options) withDefaults() Options {
	if o.ProbeTimeout <= 0 {
		o.ProbeTimeout = 20 * time.Second
	}
	if o.UploadTimeout <= 0 {
		o.UploadTimeout = 5 * time.Minute
	}
	return o
}

// RemoteDir is where cores live under the remote user's home: our own
// directory, not Hermes' ~/.hermes/desktop-ssh, whose entries are Hermes'
// SSH ownership contract (DESIGN "Remote backends (SSH)").
const RemoteDir = ".hermes-desktop/cores"

// ErrUnsafeHome means the remote home, or one of our directories between
// it and the core, is not the user's own directory or its group or anyone
// may write in it, so a checked core could be swapped before it runs;
// nothing is uploaded or run there.
var ErrUnsafeHome = errors.New("remotecore: the remote home is not safe to run from")

// ExecRefusal is the error an Exec command's exit status code means when
// the remote refused to run the core because the home or a directory
// down to it is unsafe (it says which on stderr): ErrUnsafeHome. Any other
// code gives nil.
func ExecRefusal(code int) error {
	if code == exitUnsafeHome || code == exitUnsafeChain {
		return fmt.Errorf("%w (exit status %d)", ErrUnsafeHome, code)
	}
	return nil
}

// Installed is a core in place on a remote host.
type Installed struct {
	Platform Platform
	// Path is the core's path relative to the remote user's home:
	// RemoteDir/<version>/<goos>-<goarch>/hermes-desktop-core-<16 hex of
	// the SHA-256>. The digest in the name gives each build its own file
	// (two desktops of one version but different builds never overwrite
	// each other's), and the boot reaper knows the name (corebin.IsCoreFile).
	Path string
	// Digest is the core's SHA-256, lowercase hex.
	Digest string
	// Uploaded is true when Install wrote the file, false when the one
	// there already had the digest.
	Uploaded bool
	// Muxed is true when the core serves the host's ssh session (Boot):
	// Exec's commands then go to it over the multiplexer.
	Muxed bool
}

// Install makes sure the remote has the core of cores for its platform,
// uploading it only when the file there is missing or differs, and says
// where it is. Every remote command runs with a timeout (opts).
func Install(ctx context.Context, r Remote, cores *Cores, opts Options) (Installed, error) {
	opts = opts.withDefaults()
	if err := checkVersion(cores.Version); err != nil {
		return Installed{}, err
	}
	p, err := probePlatform(ctx, r, opts.ProbeTimeout)
	if err != nil {
		return Installed{}, err
	}
	core, err := cores.Core(p)
	if err != nil {
		return Installed{}, err
	}
	in := Installed{
		Platform: p,
		Path:     path.Join(RemoteDir, cores.Version, p.GOOS+"-"+p.GOARCH, "hermes-desktop-core-"+core.Digest[:16]),
		Digest:   core.Digest,
	}
	state, err := checkRemote(ctx, r, in, opts.ProbeTimeout)
	if err != nil {
		return Installed{}, err
	}
	if state.core == stateOK {
		return in, nil
	}
	if err := upload(ctx, r, core, in, state.gzip, opts.UploadTimeout); err != nil {
		return Installed{}, err
	}
	in.Uploaded = true
	// A new version is in place: older ones beyond the newest few go. A
	// prune that fails costs only disk space.
	_, _ = r.Run(ctx, opts.ProbeTimeout, nil, PruneArgv(cores.Version)...)
	return in, nil
}

// Exec is the remote command that runs the core with args, after checking
// that the file still has the digest and that it and every directory from
// the home down are this user's alone: a file swapped or damaged since
// Install is not run (the command exits 126 and says why on stderr), nor
// one in an unsafe place (ExecRefusal says so of the exit status).
//
// Over the multiplexer (Muxed), the command is the core itself
// (muxwire.Core): the mux server runs its own executable, whose digest
// and chain the bootstrap checked before it exec'd it.
func (in Installed) Exec(args ...string) []string {
	if in.Muxed {
		return append([]string{muxwire.Core}, args...)
	}
	return append([]string{"sh", "-c", execScript, "hermes-desktop-core", in.Path, in.Digest}, args...)
}

// PruneArgv is the command that removes, under RemoteDir, the cores of
// versions other than version but the newest few (pruneScript).
func PruneArgv(version string) []string {
	return []string{"sh", "-c", pruneScript, "hermes-desktop-prune", version}
}

// checkVersion refuses a version that is not a plain path segment: it
// names a directory on the remote.
func checkVersion(v string) error {
	if v == "" || v == "." || v == ".." || len(v) > 128 || strings.Trim(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-") != "" {
		return fmt.Errorf("remotecore: version %q cannot name a directory on the remote", v)
	}
	return nil
}

// probePlatform asks the remote what it is.
func probePlatform(ctx context.Context, r Remote, timeout time.Duration) (Platform, error) {
	out, err := r.Run(ctx, timeout, nil, "uname", "-sm")
	if err != nil {
		return Platform{}, fmt.Errorf("remotecore: uname -sm: %w", err)
	}
	return ParseUname(string(out))
}

// remoteState is what checkRemote learned.
type remoteState struct {
	core string // stateOK, stateMissing or stateDiffers
	gzip bool   // the remote can unpack a gzip'd upload
}

// checkRemote says whether the remote core is there with its digest.
func checkRemote(ctx context.Context, r Remote, in Installed, timeout time.Duration) (remoteState, error) {
	out, err := r.Run(ctx, timeout, nil, "sh", "-c", checkScript, "hermes-desktop-check", in.Path, in.Digest)
	if err != nil {
		if refused := ExecRefusal(exitCode(err)); refused != nil {
			return remoteState{}, fmt.Errorf("%w: %w", refused, err)
		}
		return remoteState{}, fmt.Errorf("remotecore: check %s: %w", in.Path, err)
	}
	words := strings.Fields(string(out))
	if len(words) < 1 || len(words) > 2 || (len(words) == 2 && words[1] != "gzip") {
		return remoteState{}, fmt.Errorf("remotecore: check %s answered %q", in.Path, out)
	}
	switch words[0] {
	case stateOK, stateMissing, stateDiffers:
		return remoteState{core: words[0], gzip: len(words) == 2}, nil
	}
	return remoteState{}, fmt.Errorf("remotecore: check %s answered %q", in.Path, out)
}

// maxCoreSize bounds what a core may unpack to.
const maxCoreSize = 256 << 20

// upload streams the core to the remote, gzip'd when the remote can unpack
// it (less than half the bytes), which writes it atomically and refuses it
// if its digest is not the one recorded at build time.
func upload(ctx context.Context, r Remote, core Core, in Installed, gz bool, timeout time.Duration) error {
	f, err := os.Open(core.Path)
	if err != nil {
		return fmt.Errorf("remotecore: upload: %w", err)
	}
	defer f.Close()
	var body io.Reader = f
	mode := "gzip"
	if !gz {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return fmt.Errorf("remotecore: upload %s: %w", core.Path, err)
		}
		body, mode = io.LimitReader(zr, maxCoreSize), "plain"
	}
	out, err := r.Run(ctx, timeout, body, "sh", "-c", uploadScript, "hermes-desktop-upload", in.Path, in.Digest, mode)
	if err != nil {
		// The remote refuses a file with the wrong digest; say whether
		// ours was wrong already (a damaged install) or the stream was.
		if got, lerr := unpackedDigest(core.Path); lerr != nil || got != core.Digest {
			return fmt.Errorf("remotecore: upload %s: the local file unpacks to SHA-256 %s (%v), SHA256SUMS says %s: %w", core.Path, got, lerr, core.Digest, err)
		}
		return fmt.Errorf("remotecore: upload %s to %s: %w", core.Path, in.Path, err)
	}
	if got := strings.TrimSpace(string(out)); got != "uploaded" {
		return fmt.Errorf("remotecore: upload to %s answered %q", in.Path, got)
	}
	return nil
}

// unpackedDigest is the SHA-256 of the gzip'd file at path unpacked.
func unpackedDigest(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	if _, err := io.Copy(h, io.LimitReader(zr, maxCoreSize)); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// exitCode is the remote command's exit status in err, or -1.
func exitCode(err error) int {
	var e interface{ ExitCode() int }
	if errors.As(err, &e) {
		return e.ExitCode()
	}
	return -1
}
