package diagnose

import (
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

// String is s without its secrets.
func (r *Redactor) String(s string) string {
	for _, v := range r.exact {
		s = strings.ReplaceAll(s, v, Redacted)
	}
	for _, re := range secretPatterns {
		s = re.ReplaceAllString(s, "${1}"+Redacted)
	}
	return s
}

// OwnEnv is this process's environment, for AddEnv.
func OwnEnv() []string { return os.Environ() }
