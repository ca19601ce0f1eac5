package ssh

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
	"unicode/utf8"

	"hermes-desktop/backend/transport"
	"hermes-desktop/platform/cmdline"

	"hermes-desktop/platform/proc"
)

// Sentinels for the cases callers branch on (errors.Is).
var (
	// ErrUnknownHostKey: the host's key is in no known_hosts file.
	ErrUnknownHostKey = errors.New("ssh: unknown host key")
	// ErrHostKeyChanged: the host's key differs from the known one.
	ErrHostKeyChanged = errors.New("ssh: host key changed")
	// ErrAuth: the server refused every key (BatchMode: no prompts).
	ErrAuth = errors.New("ssh: authentication failed")
	// ErrUnreachable: the connection failed for a reason that may pass
	// (refused, timed out, reset); reconnects retry it.
	ErrUnreachable = errors.New("ssh: host unreachable")
	// ErrUnresolvable: the host's name does not resolve (the resolver
	// says it does not exist, not that it cannot ask): retrying cannot
	// help, fixing the name or the ssh config file can.
	ErrUnresolvable = errors.New("ssh: the host name does not resolve")
)

// Permanent reports whether retrying cannot help: a key problem needs a
// person, and retrying a refused key is an authentication storm.
func Permanent(err error) bool { return permanent(err) }

func permanent(err error) bool {
	return errors.Is(err, ErrUnknownHostKey) || errors.Is(err, ErrHostKeyChanged) || errors.Is(err, ErrAuth) ||
		errors.Is(err, ErrUnresolvable) || transport.IsPermanent(err)
}

// HostKeyError is an unknown or changed host key, with what a person
// needs to decide: the key's fingerprints and the command to run.
type HostKeyError struct {
	Destination  string
	Address      string   // host:port that ssh-keyscan reached, e.g. [127.0.0.1]:2222
	Fingerprints []string // "ED25519 SHA256:...", empty when the scan failed
	Hint         string
	Err          error // ErrUnknownHostKey or ErrHostKeyChanged
}

// Error names the host, its fingerprints and what to run.
func (e *HostKeyError) Error() string {
	var b strings.Builder
	if errors.Is(e.Err, ErrHostKeyChanged) {
		fmt.Fprintf(&b, "ssh: the host key of %s (%s) has CHANGED since it was accepted", e.Destination, e.Address)
	} else {
		fmt.Fprintf(&b, "ssh: the host key of %s (%s) is not known", e.Destination, e.Address)
	}
	if len(e.Fingerprints) > 0 {
		fmt.Fprintf(&b, "; it offers %s", strings.Join(e.Fingerprints, ", "))
	}
	b.WriteString("; ")
	b.WriteString(e.Hint)
	return b.String()
}

// Unwrap returns ErrUnknownHostKey or ErrHostKeyChanged.
func (e *HostKeyError) Unwrap() error { return e.Err }

// classify turns a failed session's ssh stderr into an error of one kind.
func classify(stderr string) error {
	last := lastLine(stderr)
	switch {
	case strings.Contains(stderr, "REMOTE HOST IDENTIFICATION HAS CHANGED"):
		return ErrHostKeyChanged
	case strings.Contains(stderr, "Host key verification failed"),
		strings.Contains(stderr, "host key is known for"):
		return ErrUnknownHostKey
	case strings.Contains(stderr, "Permission denied"):
		return fmt.Errorf("%w: %s", ErrAuth, last)
	case strings.Contains(stderr, "Could not resolve hostname") && !strings.Contains(stderr, "Temporary failure"):
		// "Name or service not known" (glibc), "nodename nor servname
		// provided, or not known" (macOS), "No such host is known"
		// (Windows); a temporary failure (offline) stays retried.
		return fmt.Errorf("%w (%s): check the name, or the Host and HostName lines of the ssh config file in use", ErrUnresolvable, last)
	case last == "":
		return fmt.Errorf("%w: ssh exited without a message", ErrUnreachable)
	}
	return fmt.Errorf("%w: %s", ErrUnreachable, last)
}

// LastLine is the last non-empty line of s, trimmed: what an error quotes
// of a command's stderr.
func LastLine(s string) string { return lastLine(s) }

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(strings.ReplaceAll(s, "\r", "")), "\n")
	return unvis(strings.TrimSpace(lines[len(lines)-1]))
}

// unvis undoes ssh's escaping of the bytes it will not print (\303\264
// for ô, vis(3)), where the result is UTF-8: a person reads the host
// name they typed, not its octal bytes.
func unvis(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b []byte
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) && isOctal(s[i+1]) && isOctal(s[i+2]) && isOctal(s[i+3]) && s[i+1] <= '3' {
			b = append(b, (s[i+1]-'0')<<6|(s[i+2]-'0')<<3|(s[i+3]-'0'))
			i += 3
			continue
		}
		b = append(b, s[i])
	}
	if !utf8.Valid(b) {
		return s
	}
	return string(b)
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

// hostKeyError scans the host's keys (ssh-keyscan to the host name and
// port ssh resolved; a host behind ProxyJump is not reachable that way and
// gets the hint alone) and fingerprints them with ssh-keygen -lf.
func hostKeyError(ctx context.Context, o Options, r resolved, kind error) error {
	e := &HostKeyError{Destination: o.Destination, Address: r.address(), Err: kind}
	// The commands must see what the app's connection sees: its config
	// file (an alias may exist only there) and the known_hosts file that
	// config reads, not ssh's defaults.
	known := cmp.Or(o.KnownHostsFile, r.KnownHostsFile, "~/.ssh/known_hosts")
	login := []string{"ssh"}
	if o.ConfigFile != "" {
		login = append(login, "-F", o.ConfigFile)
	}
	login = append(login, o.Destination)
	e.Hint = fmt.Sprintf("check the fingerprint with the host's owner, then run `%s` once in a terminal and accept it, or `ssh-keyscan -p %s %s >> %s`",
		cmdline.Join(login), r.Port, cmdline.Join([]string{r.HostName}), shellPath(known))
	if errors.Is(kind, ErrHostKeyChanged) {
		e.Hint = fmt.Sprintf("if the change is expected, remove the old key with `ssh-keygen -R %s` and connect once in a terminal; if not, someone may be in the middle", r.knownName())
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	scan, err := proc.OutputChild(exec.CommandContext(ctx, "ssh-keyscan", "-T", "5", "-p", r.Port, "--", r.HostName))
	if err != nil || len(scan) == 0 {
		return e
	}
	keygen := exec.CommandContext(ctx, "ssh-keygen", "-lf", "-")
	keygen.Stdin = bytes.NewReader(scan)
	out, err := proc.OutputChild(keygen)
	if err != nil {
		return e
	}
	e.Fingerprints = parseFingerprints(string(out))
	return e
}

// shellPath quotes a path for a shell, leaving a leading ~/ to expand.
func shellPath(p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		return "~/" + cmdline.Join([]string{rest})
	}
	return cmdline.Join([]string{p})
}

// parseFingerprints reads ssh-keygen -l lines, "256 SHA256:x host (ED25519)".
func parseFingerprints(out string) []string {
	var fps []string
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 4 {
			continue
		}
		typ := strings.Trim(f[len(f)-1], "()")
		fps = append(fps, typ+" "+f[1])
	}
	return fps
}
