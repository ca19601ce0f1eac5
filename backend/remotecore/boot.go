package remotecore

import (
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"strconv"
	"strings"
	"sync"

	"hermes-desktop/backend/transport"
	"hermes-desktop/contract/muxwire"
)

// Boot is the bootstrap of a host's ssh session (backend/ssh's
// Bootstrap): the remote command that checks the core for the host's
// platform, receives it in the same session when it is missing or differs,
// and execs it as the mux server; and the app's side of that exchange.
// Safe for concurrent use.
type Boot struct {
	cores *Cores

	mu        sync.Mutex
	installed *Installed // the core the last boot ran; guarded by mu
}

// NewBoot is the bootstrap that runs a core of cores.
func NewBoot(cores *Cores) *Boot { return &Boot{cores: cores} }

// The bootstrap's words on the session's stdout (bootScript).
const (
	bootHello   = "hermes-desktop-boot" // then 1, uname -s, uname -m, gzip|plain
	bootNeed    = "need"                // then gzip|plain: send the core
	bootOK      = "ok"                  // the core is in place: it runs now
	bootRefused = "refused"             // then the exit status (exitUnsafeHome, exitUnsafeChain)
	bootError   = "error"               // then why
)

// maxBootNoise bounds the lines before the bootstrap's hello (a login
// script's output).
const maxBootNoise = 64

// Command is the bootstrap's argv on the remote.
func (b *Boot) Command() []string { return []string{"sh", "-c", bootScript, bootHello} }

// Installed is the core the last successful boot runs, if any.
func (b *Boot) Installed() (Installed, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.installed == nil {
		return Installed{}, false
	}
	return *b.installed, true
}

// Run is the app's side: read the hello, name the core for the host's
// platform, send it when asked, and return once the bootstrap has exec'd
// it (the core's Banner comes next on from). An unsafe home, an
// unsupported platform or no cores are Permanent errors.
func (b *Boot) Run(ctx context.Context, from io.Reader, to io.Writer) error {
	if b.cores == nil {
		return transport.Permanent(ErrNoCores)
	}
	if err := checkVersion(b.cores.Version); err != nil {
		return transport.Permanent(err)
	}
	words, err := readHello(from)
	if err != nil {
		return err
	}
	p, err := ParseUname(words[2] + " " + words[3])
	if err != nil {
		return transport.Permanent(err)
	}
	core, err := b.cores.Core(p)
	if err != nil {
		return transport.Permanent(err)
	}
	in := Installed{
		Platform: p,
		Path:     path.Join(RemoteDir, b.cores.Version, p.GOOS+"-"+p.GOARCH, "hermes-desktop-core-"+core.Digest[:16]),
		Digest:   core.Digest,
		Muxed:    true,
	}
	if _, err := fmt.Fprintf(to, "core %s %s\n", in.Path, in.Digest); err != nil {
		return fmt.Errorf("remotecore: boot: %w", err)
	}
	answer, err := readBootLine(from)
	if err != nil {
		return err
	}
	if mode, ok := strings.CutPrefix(answer, bootNeed+" "); ok {
		if err := sendCore(ctx, to, core, mode == "gzip"); err != nil {
			return err
		}
		in.Uploaded = true
		if answer, err = readBootLine(from); err != nil {
			return err
		}
	}
	if err := bootAnswer(answer, core, in); err != nil {
		return err
	}
	b.mu.Lock()
	b.installed = &in
	b.mu.Unlock()
	return nil
}

// readHello reads lines until the bootstrap's hello and returns its words.
func readHello(from io.Reader) ([]string, error) {
	var noise []string
	for range maxBootNoise {
		line, err := readBootLine(from)
		if err != nil {
			if len(noise) > 0 {
				return nil, fmt.Errorf("remotecore: boot: no hello after %q: %w", strings.Join(noise, "\n"), err)
			}
			return nil, err
		}
		w := strings.Fields(line)
		if len(w) > 0 && w[0] == bootHello {
			if len(w) != 5 || w[1] != "1" {
				return nil, fmt.Errorf("remotecore: boot: hello %q: not ours", line)
			}
			return w, nil
		}
		noise = append(noise, line)
	}
	return nil, fmt.Errorf("remotecore: boot: no hello after %q", strings.Join(noise, "\n"))
}

func readBootLine(from io.Reader) (string, error) {
	line, err := muxwire.ReadLineBytes(from, 4096)
	return strings.TrimSuffix(string(line), "\r"), err
}

// bootAnswer is the error the bootstrap's last answer means, nil for ok.
func bootAnswer(answer string, core Core, in Installed) error {
	word, rest, _ := strings.Cut(answer, " ")
	switch word {
	case bootOK:
		return nil
	case bootRefused:
		code, _ := strconv.Atoi(rest)
		if refused := ExecRefusal(code); refused != nil {
			return transport.Permanent(refused)
		}
	case bootError:
		if in.Uploaded {
			// Say whether ours was wrong already (a damaged install) or
			// the stream was.
			if got, lerr := unpackedDigest(core.Path); lerr != nil || got != core.Digest {
				return fmt.Errorf("remotecore: boot: the local %s unpacks to SHA-256 %s (%v), SHA256SUMS says %s: the remote says %s", core.Path, got, lerr, core.Digest, rest)
			}
		}
		return fmt.Errorf("remotecore: boot %s: %s", in.Path, rest)
	}
	return fmt.Errorf("remotecore: boot %s answered %q", in.Path, answer)
}

// sendCore sends `size N` and the core's N bytes: gzip'd as shipped when
// the remote can unpack them, else unpacked.
func sendCore(ctx context.Context, to io.Writer, core Core, gz bool) error {
	size, err := coreSize(core.Path, gz)
	if err != nil {
		return err
	}
	f, err := os.Open(core.Path)
	if err != nil {
		return fmt.Errorf("remotecore: send the core: %w", err)
	}
	defer f.Close()
	var body io.Reader = f
	if !gz {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return fmt.Errorf("remotecore: send %s: %w", core.Path, err)
		}
		body = zr
	}
	if _, err := fmt.Fprintf(to, "size %d\n", size); err != nil {
		return fmt.Errorf("remotecore: send the core: %w", err)
	}
	n, err := io.Copy(to, io.LimitReader(body, size))
	if err == nil && n != size {
		err = fmt.Errorf("%d bytes of %d", n, size)
	}
	if err != nil {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return fmt.Errorf("remotecore: send %s: %w", core.Path, err)
	}
	return nil
}

// coreSize is how many bytes sendCore sends of the core at p.
func coreSize(p string, gz bool) (int64, error) {
	if gz {
		st, err := os.Stat(p)
		if err != nil {
			return 0, fmt.Errorf("remotecore: the core: %w", err)
		}
		return st.Size(), nil
	}
	f, err := os.Open(p)
	if err != nil {
		return 0, fmt.Errorf("remotecore: the core: %w", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return 0, fmt.Errorf("remotecore: the core %s: %w", p, err)
	}
	n, err := io.Copy(io.Discard, io.LimitReader(zr, maxCoreSize+1))
	if err != nil || n > maxCoreSize {
		return 0, fmt.Errorf("remotecore: the core %s unpacks to %d bytes: %v", p, n, err)
	}
	return n, nil
}
