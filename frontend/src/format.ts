// Pure formatting helpers.

/** Milliseconds since the epoch, or NaN for a missing/invalid time. */
export function parseTime(iso: string | undefined | null): number {
  if (!iso) return NaN;
  // Go's zero time marshals as 0001-01-01T00:00:00Z: treat it as missing.
  if (iso.startsWith("0001-01-01")) return NaN;
  return Date.parse(iso);
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * A span as the page shows a running time: seconds in the first minute,
 * then whole minutes, then hours and minutes, then days and hours: "12 s",
 * "3 min", "2 h 5 min", "3 d 4 h". Coarse on purpose: after the first
 * minute the text changes at most once a minute, so the page need not wake
 * every second (see durationChangesIn). Negative spans (clock skew) read
 * as 0 s.
 */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) ms = 0;
  const s = Math.floor(ms / SECOND);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 24) return m % 60 ? `${h} h ${m % 60} min` : `${h} h`;
  const d = Math.floor(h / 24);
  return h % 24 ? `${d} d ${h % 24} h` : `${d} d`;
}

/**
 * A span in at most its two largest units, as Go's human.Duration says it:
 * "5 s", "3 min", "1 min 30 s", "2 h 5 min", "250 ms". For settings and
 * limits, where the exact value matters.
 */
export function formatSpan(ms: number): string {
  if (!Number.isFinite(ms)) return "";
  if (ms < 0) return "-" + formatSpan(-ms);
  const units: [number, string][] = [[DAY, "d"], [HOUR, "h"], [MINUTE, "min"], [SECOND, "s"], [1, "ms"]];
  const parts: string[] = [];
  let rest = Math.floor(ms);
  for (const [size, name] of units) {
    const n = Math.floor(rest / size);
    if (n > 0) {
      parts.push(`${n} ${name}`);
      rest -= n * size;
    } else if (parts.length > 0) break; // "1 h 0 min 5 s" reads as "1 h"
    if (parts.length === 2) break;
  }
  return parts.length ? parts.join(" ") : "0 ms";
}

/**
 * How long until formatDuration(ms) reads differently as ms grows: the
 * delay for the one timer that updates a running time. NaN when ms is not
 * a number (there is nothing to update).
 */
export function durationChangesIn(ms: number): number {
  if (!Number.isFinite(ms)) return NaN;
  if (ms < 0) return SECOND - ms; // "0s" until a second has passed
  const step = ms < MINUTE ? SECOND : ms < DAY ? MINUTE : HOUR;
  return step - (ms % step);
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/**
 * A moment as a local clock time, with its date when it is not today:
 * "09:41", "Nov 30 09:41". For what happened once (the app's start): shown
 * this way, it changes at most once, at midnight, where a running time
 * would wake the page every minute (see clockTimeChangesIn).
 */
export function formatClockTime(at: number, now: number): string {
  if (!Number.isFinite(at)) return "";
  const d = new Date(at);
  const time = `${String(d.getHours()).padStart(2, "0")}:${String(d.getMinutes()).padStart(2, "0")}`;
  return sameLocalDay(at, now) ? time : `${MONTHS[d.getMonth()]} ${d.getDate()} ${time}`;
}

/**
 * How long until formatClockTime(at, now) reads differently as now grows:
 * until the next local midnight while at is today, never (NaN) after.
 */
export function clockTimeChangesIn(at: number, now: number): number {
  if (!Number.isFinite(at) || !Number.isFinite(now) || !sameLocalDay(at, now)) return NaN;
  const midnight = new Date(now);
  midnight.setHours(24, 0, 0, 0);
  return midnight.getTime() - now;
}

function sameLocalDay(a: number, b: number): boolean {
  const x = new Date(a);
  const y = new Date(b);
  return x.getFullYear() === y.getFullYear() && x.getMonth() === y.getMonth() && x.getDate() === y.getDate();
}

/** A span as its largest unit only: "45 s", "2 min", "3 h", "2 d". */
export function formatAge(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) ms = 0;
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h} h`;
  return `${Math.floor(h / 24)} d`;
}

/**
 * How long until formatAge(ms) reads differently as ms grows: each second
 * in the first minute, then each minute, hour, day. NaN when ms is not a
 * number.
 */
export function ageChangesIn(ms: number): number {
  if (!Number.isFinite(ms)) return NaN;
  if (ms < 0) return SECOND - ms; // "0s" until a second has passed
  const step = ms < MINUTE ? SECOND : ms < HOUR ? MINUTE : ms < DAY ? HOUR : DAY;
  return step - (ms % step);
}

/** What a backend's running time counts from, and the words before it. */
export interface Uptime {
  /** "up " or "starting for ". */
  prefix: string;
  /** Milliseconds since the epoch. */
  since: number;
}

/**
 * A running backend's time: from ready_at (or started_at while it is still
 * starting); null when there is nothing to measure.
 */
export function uptimeOf(b: { state: string; ready_at?: string; started_at?: string }): Uptime | null {
  // An attached backend is not ours: its age is not known.
  if (b.state === "stopped" || b.state === "failed" || b.state === "external") return null;
  const ready = parseTime(b.ready_at);
  if (b.state === "ready" && Number.isFinite(ready)) return { prefix: "up ", since: ready };
  const started = parseTime(b.started_at);
  if (Number.isFinite(started)) return { prefix: b.state === "ready" ? "up " : "starting for ", since: started };
  return null;
}

/** "up 3 min" for a running backend (see uptimeOf); "" when there is nothing to measure. */
export function formatUptime(b: { state: string; ready_at?: string; started_at?: string }, now: number): string {
  const u = uptimeOf(b);
  return u ? u.prefix + formatDuration(now - u.since) : "";
}

const BYTE_UNITS = ["KB", "MB", "GB", "TB", "PB"];

/** Binary sizes with short labels: "512 B", "38.2 MB", "1.5 GB", "120 MB". */
export function formatBytes(n: number): string {
  if (!Number.isFinite(n) || n < 0) return "—";
  if (n < 1024) return `${Math.round(n)} B`;
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < BYTE_UNITS.length - 1) {
    v /= 1024;
    i++;
  }
  // Round first so 1023.96 KB reads "1.0 MB" rather than "1024 KB".
  if (v >= 99.95 && Math.round(v) >= 1024 && i < BYTE_UNITS.length - 1) {
    v /= 1024;
    i++;
  }
  const text = v >= 99.95 ? String(Math.round(v)) : v.toFixed(1);
  return `${text} ${BYTE_UNITS[i]}`;
}

/** Integer with thousands separators, locale-independent: 12,345. */
export function formatCount(n: number): string {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/** "1 backend", "2 backends". */
export function plural(n: number, one: string, many = one + "s"): string {
  return `${n} ${n === 1 ? one : many}`;
}

const SAFE_ARG = /^[^ \t\n'"\\$`*?[\]{}()<>|&;#~]+$/;

/**
 * Whose quoting command lines are shown and read with: the shell's, or
 * Windows' (CommandLineToArgvW, as Go's platform/cmdline on Windows). Set
 * once at start from the platform the engine runs on (main.ts).
 */
export type Quoting = "posix" | "windows";

let quoting: Quoting = "posix";

/** Sets the quoting of every command line shown or checked from now on. */
export function setQuoting(q: Quoting): void {
  quoting = q;
}

/** The quoting in force. */
export function currentQuoting(): Quoting {
  return quoting;
}

/** Quotes one argument the way Go's cmdline.Join does on the engine's platform. */
export function shellQuote(arg: string): string {
  if (quoting === "windows") return windowsQuote(arg);
  if (arg !== "" && SAFE_ARG.test(arg)) return arg;
  return "'" + arg.replace(/'/g, `'\\''`) + "'";
}

/** Go's syscall.EscapeArg: quotes around blanks, backslashes doubled only before a quote. */
function windowsQuote(arg: string): string {
  if (arg === "") return '""';
  if (!/[ \t"\\]/.test(arg)) return arg;
  const spaced = /[ \t]/.test(arg);
  let out = spaced ? '"' : "";
  let slashes = 0;
  for (const c of arg) {
    if (c === "\\") slashes++;
    else {
      if (c === '"') out += "\\".repeat(slashes + 1);
      slashes = 0;
    }
    out += c;
  }
  if (spaced) out += "\\".repeat(slashes) + '"';
  return out;
}

/** Joins argv into a line the engine's cmdline.Split reads back unchanged. */
export function shellJoin(argv: readonly string[] | null | undefined): string {
  return (argv ?? []).map(shellQuote).join(" ");
}

/** Local wall-clock time "14:03:22" ("" for a missing time). */
export function formatClock(iso: string | undefined): string {
  const t = parseTime(iso);
  if (!Number.isFinite(t)) return "";
  const d = new Date(t);
  const p = (x: number) => String(x).padStart(2, "0");
  return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** Local date and time "2024-05-01 14:03:22". */
export function formatDateTime(iso: string | undefined): string {
  const t = parseTime(iso);
  if (!Number.isFinite(t)) return "";
  const d = new Date(t);
  const p = (x: number) => String(x).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${formatClock(iso)}`;
}

/** A readable message from whatever a rejected promise carried. */
/** Go's errors start in lower case ("the update feed's signature expired
 *  on …"); on their own they read as a sentence. */
export function sentence(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export function errorMessage(e: unknown): string {
  if (typeof e === "string") return e.trim() || "Something went wrong";
  if (e instanceof Error) return e.message || "Something went wrong";
  if (e && typeof e === "object" && "message" in e && typeof (e as { message: unknown }).message === "string") {
    return (e as { message: string }).message;
  }
  return "Something went wrong";
}

/** Shortens text to max characters with an ellipsis. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  return text.slice(0, Math.max(0, max - 1)) + "…";
}
