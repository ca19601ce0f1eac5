package hermes

import (
	"net/netip"
	"regexp"
	"strings"
	"sync"
)

// IsLoopbackHost reports whether host names this machine's loopback
// interface: "localhost" in any ASCII case, or a literal loopback address
// (127.0.0.0/8, ::1, or an IPv4-mapped ::ffff:127.x.y.z), an IPv6 one with
// or without brackets. Everything else is not, the wildcards 0.0.0.0 and :: in
// particular: a server bound there listens on every interface. Stricter
// forms are refused rather than guessed at: "localhost." and names under
// localhost (which a resolver may send to DNS), addresses with a zone, and
// the short or octal IPv4 forms some resolvers accept ("127.1", "0177.0.0.1").
func IsLoopbackHost(host string) bool {
	if h, ok := strings.CutPrefix(host, "["); ok {
		h, ok = strings.CutSuffix(h, "]")
		ip, err := netip.ParseAddr(h)
		return ok && err == nil && ip.Is6() && isLoopback(ip)
	}
	if isLocalhost(host) {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && isLoopback(ip)
}

func isLoopback(ip netip.Addr) bool { return ip.Zone() == "" && ip.IsLoopback() }

// isLocalhost compares in ASCII only: Unicode folding (strings.EqualFold)
// would take "localhoſt" (U+017F) for localhost, a name no hosts file
// holds, which a resolver sends to DNS.
func isLocalhost(host string) bool {
	const want = "localhost"
	if len(host) != len(want) {
		return false
	}
	for i := 0; i < len(host); i++ {
		c := host[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != want[i] {
			return false
		}
	}
	return true
}

// urlInText matches what may be an http(s) URL with a port in free text:
// the host is checked by IsLoopbackHost, not by the pattern. It is compiled
// on first use, not at init: the watchdog shim, whose start is timed,
// imports this package and never needs it.
var urlInText = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`https?://(\[[0-9A-Za-z:.%]+\]|[0-9A-Za-z.-]+):[0-9]{1,5}(?:/[^\s"'<>]*)?`)
})

// FindLoopbackURL returns the first http(s) URL with an explicit port on a
// loopback host (IsLoopbackHost) in a line of output, or "".
func FindLoopbackURL(line string) string {
	for _, m := range urlInText().FindAllStringSubmatch(line, -1) {
		if IsLoopbackHost(m[1]) {
			return m[0]
		}
	}
	return ""
}
