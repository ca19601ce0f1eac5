package diagnose

import (
	"bytes"
	"os"
	"regexp"
	"slices"
	"strings"
)

// Redacted stands where a secret was.
const Redacted = "[redacted]"

// secretName is an environment variable or a field whose value is a secret.
var secretName = regexp.MustCompile(`(?i)(token|secret|passw(or)?d|api[_-]?key|credential|private[_-]?key|cookie)`)

// secretPatterns find a secret by what surrounds it; group 1 is kept, the
// rest of the match is the secret.
var secretPatterns = []*regexp.Regexp{
	// Authorization: Bearer x / Basic x, as a header or a logged field.
	regexp.MustCompile(`(?i)(authorization["']?\s*[:=]\s*["']?)(?:(?:bearer|basic|token)\s+)?[^\s"',;]+`),
	regexp.MustCompile(`(?i)(x-hermes-session-token["']?\s*[:=]\s*["']?)[^\s"',;]+`),
	regexp.MustCompile(`(?i)(\bbearer\s+)[A-Za-z0-9._~+/=-]{6,}`),
	// NAME=value, "name": "value", name: value, ?token=value, where the
	// name says secret (HERMES_DASHBOARD_SESSION_TOKEN, api_key, ...).
	regexp.MustCompile(`(?i)([A-Za-z0-9_.-]*(?:token|secret|passw(?:or)?d|api[_-]?key|credential|cookie)[A-Za-z0-9_]*["']?\s*[:=]\s*["']?)[^\s"',;&]+`),
	// --token x, --api-key=x on a command line.
	regexp.MustCompile(`(?i)(--[a-z-]*(?:token|secret|password|api-key)[= ]["']?)[^\s"']+`),
	// The same as an argument vector in JSON: "--token", "x".
	regexp.MustCompile(`(?i)("--[a-z-]*(?:token|secret|password|api-key)"\s*,\s*")(?:[^"\\]|\\.)*`),
}

// Redactor removes secrets from text: the exact values it was given (from
// the environments of the app and its backends) wherever they occur, and
// whatever the patterns above find.
type Redactor struct {
	exact []string
}

// NewRedactor redacts the given values (the short ones are skipped: too
// likely to be ordinary words).
func NewRedactor(values ...string) *Redactor {
	r := &Redactor{}
	r.Add(values...)
	return r
}

// Add redacts these values too.
func (r *Redactor) Add(values ...string) {
	for _, v := range values {
		if len(v) >= 6 && !slices.Contains(r.exact, v) {
			r.exact = append(r.exact, v)
		}
	}
	// Longest first: a value that holds another is taken whole.
	slices.SortFunc(r.exact, func(a, b string) int { return len(b) - len(a) })
}

// AddEnv redacts the values of an environment's secret variables.
func (r *Redactor) AddEnv(env []string) {
	for _, kv := range env {
		if name, value, ok := strings.Cut(kv, "="); ok && secretName.MatchString(name) {
			r.Add(value)
		}
	}
}

// secretHints are in every line a pattern can match (lower case): the
// patterns run only on those lines, found by a plain search (a report
// reads up to 32 MiB of logs; the patterns over all of it took seconds).
var secretHints = []string{"auth", "bearer", "token", "secret", "passw", "apikey", "api_key", "api-key", "credential", "cookie"}

// String is s without its secrets.
func (r *Redactor) String(s string) string {
	for _, v := range r.exact {
		s = strings.ReplaceAll(s, v, Redacted)
	}
	lower := lowerASCII(s)  // the same offsets as s
	marked := map[int]int{} // line start -> end, for the lines with a hint
	for _, hint := range secretHints {
		for at := 0; ; {
			i := bytes.Index(lower[at:], []byte(hint))
			if i < 0 {
				break
			}
			i += at
			start := bytes.LastIndexByte(lower[:i], '\n') + 1
			end := len(s)
			if j := bytes.IndexByte(lower[i:], '\n'); j >= 0 {
				end = i + j
			}
			marked[start] = end
			at = end
		}
	}
	if len(marked) == 0 {
		return s
	}
	starts := make([]int, 0, len(marked))
	for st := range marked {
		starts = append(starts, st)
	}
	slices.Sort(starts)
	var b strings.Builder
	b.Grow(len(s))
	prev := 0
	for _, st := range starts {
		end := marked[st]
		b.WriteString(s[prev:st])
		line := s[st:end]
		for _, re := range secretPatterns {
			line = re.ReplaceAllString(line, "${1}"+Redacted)
		}
		b.WriteString(line)
		prev = end
	}
	b.WriteString(s[prev:])
	return b.String()
}

// lowerASCII is s with its ASCII letters in lower case, byte for byte.
func lowerASCII(s string) []byte {
	out := []byte(s)
	for i, c := range out {
		if 'A' <= c && c <= 'Z' {
			out[i] = c + 'a' - 'A'
		}
	}
	return out
}

// OwnEnv is this process's environment, for AddEnv.
func OwnEnv() []string { return os.Environ() }
