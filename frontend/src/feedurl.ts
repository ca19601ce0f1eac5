// The update feed's URL as Go's settings.ValidateFeedURL judges it: parsed
// by net/url, absolute, https or http to a loopback host, at most 2048
// bytes. The browser's URL parser is not Go's: it accepts "https:host",
// "http://127.1/" and "http://localhost./", which Go refuses, so a check
// built on it would let the form pass what Save then rejects. This is a
// port of the parts of Go 1.26's net/url, net/netip and net.IP.IsLoopback
// that decide; nothing else of the URL is kept.

/** Go's limit, in UTF-8 bytes. */
export const FEED_MAX_BYTES = 2048;

/** Why Go refuses a feed URL, in the order it checks. */
export type FeedProblem = "too-long" | "not-absolute" | "insecure";

/** What ValidateFeedURL would refuse the URL for, or null if it accepts it. */
export function feedProblem(raw: string): FeedProblem | null {
  if (new TextEncoder().encode(raw).length > FEED_MAX_BYTES) return "too-long";
  const u = parseURL(raw);
  if (!u || u.host === "" || u.opaque !== "") return "not-absolute";
  if (u.scheme === "https") return null;
  if (u.scheme === "http" && isLoopbackHost(hostname(u.host))) return null;
  return "insecure";
}

/** The parts of a Go *url.URL the check reads. */
interface GoURL {
  scheme: string;
  opaque: string;
  /** Unescaped, with its port and brackets, as url.URL.Host. */
  host: string;
}

/** url.Parse: null where it returns an error. */
function parseURL(raw: string): GoURL | null {
  const hash = raw.indexOf("#");
  const u = parseNoFragment(hash < 0 ? raw : raw.slice(0, hash));
  // The fragment is only unescaped: control characters pass there.
  if (!u || (hash >= 0 && unescape(raw.slice(hash + 1), "other") === null)) return null;
  return u;
}

/** url.parse with viaRequest false. */
function parseNoFragment(raw: string): GoURL | null {
  if (/[\x00-\x1f\x7f]/.test(raw)) return null;
  if (raw === "*") return { scheme: "", opaque: "", host: "" };
  const split = splitScheme(raw);
  if (!split) return null;
  const scheme = split[0].toLowerCase();
  let rest = split[1];
  if (rest.endsWith("?") && rest.indexOf("?") === rest.length - 1) rest = rest.slice(0, -1);
  else if (rest.includes("?")) rest = rest.slice(0, rest.indexOf("?"));
  if (!rest.startsWith("/")) {
    if (scheme !== "") return { scheme, opaque: rest, host: "" };
    // A relative path whose first segment has a colon is refused (golang.org/issue/16822).
    if (rest.split("/")[0].includes(":")) return null;
  }
  let host = "";
  if ((scheme !== "" || !rest.startsWith("///")) && rest.startsWith("//")) {
    let authority = rest.slice(2);
    rest = "";
    const slash = authority.indexOf("/");
    if (slash >= 0) [authority, rest] = [authority.slice(0, slash), authority.slice(slash)];
    const h = parseAuthority(scheme, authority);
    if (h === null) return null;
    host = h;
  }
  return unescape(rest, "other") === null ? null : { scheme, opaque: "", host };
}

/** url.getScheme: [scheme, rest], or null for "missing protocol scheme". */
function splitScheme(raw: string): [string, string] | null {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (/[a-zA-Z]/.test(c)) continue;
    if (/[0-9+.-]/.test(c)) {
      if (i === 0) return ["", raw];
      continue;
    }
    if (c === ":") return i === 0 ? null : [raw.slice(0, i), raw.slice(i + 1)];
    return ["", raw];
  }
  return ["", raw];
}

/** url.parseAuthority: the host, or null. */
function parseAuthority(scheme: string, authority: string): string | null {
  const at = authority.lastIndexOf("@");
  const host = parseHost(scheme, at < 0 ? authority : authority.slice(at + 1));
  if (host === null || at < 0) return host;
  const userinfo = authority.slice(0, at);
  // No escape can span the ':' between name and password, so one pass checks both.
  if (!/^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(userinfo) || unescape(userinfo, "other") === null) return null;
  return host;
}

/** url.parseHost: the unescaped host[:port], or null. */
function parseHost(scheme: string, host: string): string | null {
  const open = host.lastIndexOf("[");
  if (open > 0) return null;
  if (open === 0) {
    const close = host.lastIndexOf("]");
    if (close < 0) return null;
    const colonPort = host.slice(close + 1);
    if (!validOptionalPort(colonPort)) return null;
    const name = host.slice(1, close);
    // RFC 6874: "%25" starts a zone, which may escape more than a host may.
    const z = name.indexOf("%25");
    const addr = z < 0 ? unescape(name, "host") : join(unescape(name.slice(0, z), "host"), unescape(name.slice(z), "zone"));
    if (addr === null) return null;
    const ip = parseAddr(addr);
    if (!ip || ip.is4) return null; // brackets hold IPv6 only
    return `[${addr}]${colonPort}`;
  }
  const colon = host.indexOf(":");
  if (colon >= 0) {
    // Since Go 1.26 (urlstrictcolons) http and https hosts take one colon.
    const last = host.lastIndexOf(":");
    const at = last !== colon && scheme !== "http" && scheme !== "https" ? last : colon;
    if (!validOptionalPort(host.slice(at))) return null;
  }
  return unescape(host, "host");
}

function join(a: string | null, b: string | null): string | null {
  return a === null || b === null ? null : a + b;
}

/** url.validOptionalPort: "" or ":" and digits. */
function validOptionalPort(port: string): boolean {
  return /^(:[0-9]*)?$/.test(port);
}

/** url.URL.Hostname: the host without its port and brackets. */
function hostname(hostPort: string): string {
  let host = hostPort;
  const colon = host.lastIndexOf(":");
  if (colon >= 0 && validOptionalPort(host.slice(colon))) host = host.slice(0, colon);
  if (host.startsWith("[") && host.endsWith("]")) host = host.slice(1, -1);
  return host;
}

/** Bytes a host may hold unescaped (net/url's shouldEscape, encodeHost). */
const HOST_CHARS = /[A-Za-z0-9\-_.~!$&'()*+,;=:[\]<>"]/;

/**
 * url.unescape: the text with each %XX decoded (a byte, held as one
 * character), or null where Go returns an error. In a host only bytes
 * above 0x7f may be escaped (and %25); a zone may escape what a host may
 * hold, a space or %25; ASCII outside HOST_CHARS is refused in both.
 */
function unescape(s: string, mode: "host" | "zone" | "other"): string | null {
  let out = "";
  for (let i = 0; i < s.length; ) {
    const c = s[i];
    if (c !== "%") {
      if (mode !== "other" && c.charCodeAt(0) < 0x80 && !HOST_CHARS.test(c)) return null;
      out += c;
      i++;
      continue;
    }
    const hex = s.slice(i + 1, i + 3);
    if (!/^[0-9a-fA-F]{2}$/.test(hex)) return null;
    const v = parseInt(hex, 16);
    if (mode === "host" && v < 0x80 && hex !== "25") return null;
    if (mode === "zone" && hex !== "25" && v !== 0x20 && !(v < 0x80 && HOST_CHARS.test(String.fromCharCode(v)))) return null;
    out += String.fromCharCode(v);
    i += 3;
  }
  return out;
}

/** An address as net/netip parses it. */
interface Addr {
  bytes: number[]; // 4 for IPv4, 16 for IPv6
  zone: string;
  is4: boolean;
}

/** netip.ParseAddr. */
function parseAddr(s: string): Addr | null {
  for (const c of s) {
    if (c === ".") {
      const f = ipv4Fields(s);
      return f && { bytes: f, zone: "", is4: true };
    }
    if (c === ":") return parseIPv6(s);
    if (c === "%") return null;
  }
  return null;
}

/** netip's parseIPv4Fields: four decimal octets, no leading zeros. */
function ipv4Fields(s: string): number[] | null {
  const fields: number[] = [];
  let val = 0;
  let digits = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c >= "0" && c <= "9") {
      if (digits === 1 && val === 0) return null;
      val = val * 10 + Number(c);
      digits++;
      if (val > 255) return null;
    } else if (c === ".") {
      if (i === 0 || i === s.length - 1 || s[i - 1] === "." || fields.length === 3) return null;
      fields.push(val);
      val = 0;
      digits = 0;
    } else {
      return null;
    }
  }
  if (fields.length < 3) return null;
  fields.push(val);
  return fields;
}

/** netip's parseIPv6: groups of up to 4 hex digits, one "::", an IPv4 tail, a zone. */
function parseIPv6(input: string): Addr | null {
  let s = input;
  let zone = "";
  const pct = s.indexOf("%");
  if (pct >= 0) {
    [s, zone] = [s.slice(0, pct), s.slice(pct + 1)];
    if (zone === "") return null;
  }
  const ip = new Array<number>(16).fill(0);
  let ellipsis = -1;
  if (s.startsWith("::")) {
    ellipsis = 0;
    s = s.slice(2);
    if (s === "") return { bytes: ip, zone, is4: false };
  }
  let i = 0;
  while (i < 16) {
    let off = 0;
    let acc = 0;
    for (; off < s.length && /[0-9a-fA-F]/.test(s[off]); off++) {
      acc = acc * 16 + parseInt(s[off], 16);
      if (off > 3 || acc > 0xffff) return null;
    }
    if (off === 0) return null;
    if (s[off] === ".") {
      if ((ellipsis < 0 && i !== 12) || i + 4 > 16) return null;
      const v4 = ipv4Fields(s);
      if (!v4) return null;
      ip.splice(i, 4, ...v4);
      s = "";
      i += 4;
      break;
    }
    ip[i] = acc >> 8;
    ip[i + 1] = acc & 0xff;
    i += 2;
    s = s.slice(off);
    if (s === "") break;
    if (s[0] !== ":" || s.length === 1) return null;
    s = s.slice(1);
    if (s[0] === ":") {
      if (ellipsis >= 0) return null;
      ellipsis = i;
      s = s.slice(1);
      if (s === "") break;
    }
  }
  if (s !== "") return null;
  if (i < 16) {
    if (ellipsis < 0) return null;
    const n = 16 - i;
    for (let j = i - 1; j >= ellipsis; j--) ip[j + n] = ip[j];
    ip.fill(0, ellipsis, ellipsis + n);
  } else if (ellipsis >= 0) {
    return null; // "::" must stand for at least one group
  }
  return { bytes: ip, zone, is4: false };
}

/** hermes.IsLoopbackHost: "localhost" in any ASCII case (no /u: "ſ" is no s), or a loopback IP. */
function isLoopbackHost(host: string): boolean {
  if (/^localhost$/i.test(host)) return true;
  const ip = parseAddr(host);
  if (!ip || ip.zone !== "") return false; // net.ParseIP refuses zones
  const b = ip.bytes;
  if (ip.is4) return b[0] === 127;
  // IPv4-mapped (::ffff:127.x.x.x) counts as IPv4, as net.IP.To4 does.
  const mapped = b.slice(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff;
  if (mapped) return b[12] === 127;
  return b.slice(0, 15).every((x) => x === 0) && b[15] === 1;
}
