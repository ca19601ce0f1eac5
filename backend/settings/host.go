package settings

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// WSL hosts: "wsl:" alone is the default distribution; a name is what
// backend/wsl accepts (a letter, digit, '.' or '_' first, then also '-',
// at most 64).
const (
	wslPrefix   = "wsl:"
	maxDistro   = 64
	maxHostLen  = 255
	sshURI      = "ssh://"
	hostExample = "an ssh destination like user@example.com, ssh://user@example.com:2222 or an alias from your ssh config"
)

// hostBytes are every byte a host may hold anywhere; each part allows
// fewer (checkDestination).
const hostBytes = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_@:[]%$+/"

// nameBytes are a host name's or an ssh config alias's.
const nameBytes = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_"

// ValidateHost checks a backend's host: "" (this machine), "wsl:DISTRO",
// or an ssh(1) destination: [user@]host, ssh://[user@]host[:port] or an
// alias of the ssh config, host being a name, an IPv4 address or an IPv6
// one (in brackets in the ssh:// form). Nothing else is let through: the
// host reaches ssh's ProxyCommand and the remote's logs through %h and
// %r, so a ';', '$(', a backtick, a quote or a space could become a
// command there; a leading '-' would be an option.
func ValidateHost(host string) error {
	if host == "" {
		return nil
	}
	if err := checkHost(host); err != nil {
		return fieldError("host", fmt.Errorf("%q: %w; want %s", host, err, hostExample))
	}
	return nil
}

func checkHost(host string) error {
	if len(host) > maxHostLen {
		return fmt.Errorf("longer than %d bytes", maxHostLen)
	}
	if strings.HasPrefix(host, "-") {
		return errors.New("a host cannot start with '-' (ssh would read an option)")
	}
	for _, r := range host {
		if r > 0x7f || !strings.ContainsRune(hostBytes, r) {
			return fmt.Errorf("%s cannot be in a host", strconv.QuoteRune(r))
		}
	}
	if distro, ok := strings.CutPrefix(host, wslPrefix); ok {
		return checkDistro(distro)
	}
	if rest, ok := strings.CutPrefix(host, sshURI); ok {
		return checkDestination(rest, true)
	}
	return checkDestination(host, false)
}

// checkDistro checks a WSL distribution's name ("" is the default one).
func checkDistro(d string) error {
	if d == "" {
		return nil
	}
	if len(d) > maxDistro || strings.HasPrefix(d, "-") || strings.Trim(d, nameBytes) != "" {
		return fmt.Errorf("WSL distribution %q is not a name of letters, digits, '.', '_' and '-' (at most %d)", d, maxDistro)
	}
	return nil
}

// checkDestination checks [user@]host, with an optional :port and an
// IPv6 address in brackets when uri (the ssh:// form).
func checkDestination(dest string, uri bool) error {
	hostport := dest
	if at := strings.LastIndexByte(dest, '@'); at >= 0 {
		if err := checkUser(dest[:at]); err != nil {
			return err
		}
		hostport = dest[at+1:]
	}
	if hostport == "" {
		return errors.New("no host name")
	}
	if !uri {
		if _, err := netip.ParseAddr(hostport); err == nil && strings.Contains(hostport, ":") {
			return checkZone(hostport)
		}
		return checkHostName(hostport, "a port or an IPv6 address in brackets goes in the ssh:// form, ssh://host:PORT")
	}
	host, port := hostport, ""
	if strings.HasPrefix(hostport, "[") {
		end := strings.IndexByte(hostport, ']')
		if end < 0 {
			return errors.New("'[' without ']'")
		}
		host, port = hostport[1:end], hostport[end+1:]
		if a, err := netip.ParseAddr(host); err != nil || !a.Is6() {
			return fmt.Errorf("[%s] is not an IPv6 address", host)
		}
		if err := checkZone(host); err != nil {
			return err
		}
	} else {
		if i := strings.LastIndexByte(hostport, ':'); i >= 0 {
			host, port = hostport[:i], hostport[i:]
		}
		if err := checkHostName(host, "an IPv6 address goes in brackets: ssh://[ADDRESS]:PORT"); err != nil {
			return err
		}
	}
	return checkPort(port)
}

// checkHostName checks a host name, an IPv4 address or an ssh config
// alias; hint says where a ':', '[' or ']' would have gone.
func checkHostName(h, hint string) error {
	if h == "" {
		return errors.New("no host name")
	}
	if strings.HasPrefix(h, "-") {
		return errors.New("a host name cannot start with '-'")
	}
	if i := strings.IndexFunc(h, notIn(nameBytes)); i >= 0 {
		err := fmt.Errorf("%s cannot be in a host name", strconv.QuoteRune(rune(h[i])))
		if strings.ContainsRune(":[]", rune(h[i])) {
			err = fmt.Errorf("%w (%s)", err, hint)
		}
		return err
	}
	return nil
}

// checkUser checks a user name: letters, digits, '.', '_', '-', '+', an
// '@' (a directory's user@domain) and a '$' at the end (a Samba machine
// account), and not a '-' first.
func checkUser(u string) error {
	if u == "" {
		return errors.New("an empty user name before '@'")
	}
	if strings.HasPrefix(u, "-") {
		return errors.New("a user name cannot start with '-'")
	}
	if i := strings.IndexFunc(strings.TrimSuffix(u, "$"), notIn(nameBytes+"@+")); i >= 0 {
		return fmt.Errorf("%s cannot be in a user name", strconv.QuoteRune(rune(u[i])))
	}
	return nil
}

// checkZone checks an IPv6 address's zone ("%eth0"), which ssh passes on.
func checkZone(addr string) error {
	_, zone, ok := strings.Cut(addr, "%")
	if ok && (zone == "" || strings.Trim(zone, nameBytes) != "") {
		return fmt.Errorf("%q is not a network interface", zone)
	}
	return nil
}

// checkPort checks ":PORT" ("" is ssh's default port).
func checkPort(port string) error {
	if port == "" {
		return nil
	}
	digits, ok := strings.CutPrefix(port, ":")
	if !ok {
		return fmt.Errorf("%q after the host: a port follows a ':'", port)
	}
	n, err := strconv.Atoi(digits)
	if err != nil || strings.Trim(digits, "0123456789") != "" || n < 1 || n > 65535 {
		return fmt.Errorf("port %q is not a number from 1 to 65535", digits)
	}
	return nil
}

// notIn is a rune test true of runes outside set.
func notIn(set string) func(rune) bool {
	return func(r rune) bool { return !strings.ContainsRune(set, r) }
}
