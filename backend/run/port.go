package run

import (
	"regexp"
	"strconv"

	"hermes-desktop/backend/settings"
)

// PortMatcher finds the port a backend announces in its output: the first
// group of its spec's ready regex, on the first line that matches with a
// valid port. Both kinds of run read their backend's lines through one.
type PortMatcher struct {
	re    *regexp.Regexp
	found chan int // buffered(1): the first port announced
}

// NewPortMatcher matches readyRegex, which runspec's defaults validated.
func NewPortMatcher(readyRegex string) *PortMatcher {
	re, _ := settings.CompileReadyRegex(readyRegex) // validated by ApplyDefaults
	return &PortMatcher{re: re, found: make(chan int, 1)}
}

// Line looks at one output line; only the first announcement counts.
func (m *PortMatcher) Line(line string) {
	g := m.re.FindStringSubmatch(line)
	if g == nil {
		return
	}
	if port, err := strconv.Atoi(g[1]); err == nil && port > 0 && port <= 65535 {
		select {
		case m.found <- port:
		default: // an earlier line announced it
		}
	}
}

// Found delivers the port announced, once.
func (m *PortMatcher) Found() <-chan int { return m.found }
