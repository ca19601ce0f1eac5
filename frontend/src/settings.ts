// Settings form logic: the form's draft, validation that mirrors the Go
// side, diffs, and the object Save sends.

import { currentQuoting, formatSpan } from "./format";
import { APPLIED_AT_ONCE, BOOL_KEYS, FIELD_LABELS, SETTINGS_KEYS, type BoolKey, type SettingsDraft, type SettingsKey, type TextKey } from "./generated/models";
import { captureGroups, commandError, parseGoDuration } from "./settingsparse";
import type { Settings, SettingsEdit } from "./types";

export { captureGroups, commandError, parseGoDuration } from "./settingsparse";

// The keys, the draft's shape and the labels are settings.Options' (Go),
// generated: src/generated/models.ts.
export { APPLIED_AT_ONCE, BOOL_KEYS, FIELD_LABELS, SETTINGS_KEYS } from "./generated/models";
export type { BoolKey, SettingsDraft, SettingsKey, TextKey } from "./generated/models";

/**
 * The labels of a backend's own fields that are no setting of this page
 * (the Add backend form's), as Go starts their errors (settings.Labels).
 */
export const BACKEND_FIELD_LABELS = {
  host: "Host",
} as const;

/**
 * Go's refusal of a save split by field: each line "Ready pattern: not a
 * valid regular expression (...)" goes under its field, said as a
 * sentence; what names no field is left in rest, for the form's footer.
 */
export function fieldErrorsFrom(message: string): { errors: SettingsErrors; rest: string[] } {
  const byLabel = new Map(Object.entries(FIELD_LABELS).map(([k, l]) => [l, k as TextKey]));
  const errors: SettingsErrors = {};
  const rest: string[] = [];
  for (const line of message.split("\n").map((l) => l.trim()).filter((l) => l)) {
    const colon = line.indexOf(": ");
    const key = colon > 0 ? byLabel.get(line.slice(0, colon)) : undefined;
    if (key && !errors[key]) {
      const text = line.slice(colon + 2);
      errors[key] = text.charAt(0).toUpperCase() + text.slice(1);
    } else rest.push(line);
  }
  return { errors, rest };
}

export function isBoolKey(k: string): k is BoolKey {
  return (BOOL_KEYS as readonly string[]).includes(k);
}

/** The shared readiness settings a backend without its own takes. */
const READINESS_KEYS = ["ready_regex", "health_path", "grace"] as const;

type DurationKey = "grace" | "min_orphan_age" | "sample_interval" | "disconnect_grace";
type IntKey = "max_duplicate_children" | "nofile_soft_limit";

/** Go's accepted ranges (backend.Settings.Validate), inclusive, in ms. */
/** The limits are said as a person reads them (formatSpan: "10 min"); the
 *  examples are what to type (Go's spelling). */
const DURATIONS: Record<DurationKey, { lo: number; hi: number; example: string }> = {
  grace: { lo: 1, hi: 600_000, example: "5s, 1m or 1m30s" },
  min_orphan_age: { lo: 1000, hi: 7 * 24 * 3_600_000, example: "3m, 90s or 1h" },
  sample_interval: { lo: 100, hi: 3_600_000, example: "5s, 500ms or 1m" },
  // settings.MinDisconnectGrace: below it a few lost heartbeats would
  // tear a remote backend down.
  disconnect_grace: { lo: 3000, hi: 3_600_000, example: "30s, 2m or 1h" },
};

const INTS: Record<IntKey, { max: number }> = {
  max_duplicate_children: { max: 1000 },
  nofile_soft_limit: { max: 1 << 20 },
};

const isDurationKey = (k: SettingsKey): k is DurationKey => k in DURATIONS;

/** A whole number typed in a box ("" and anything else: NaN). */
function parseCount(text: string): number {
  const t = text.trim();
  return /^\d+$/.test(t) ? Number(t) : NaN;
}

/** The form's view of loaded settings; fields Go omitted read as their zero. */
export function toDraft(s: Settings): SettingsDraft {
  const dup = s.max_duplicate_children;
  const nofile = s.nofile_soft_limit;
  return {
    backend_command: s.backend_command ?? "",
    ready_regex: s.ready_regex ?? "",
    health_path: s.health_path ?? "",
    grace: s.grace ?? "",
    min_orphan_age: s.min_orphan_age ?? "",
    start_at_login: !!s.start_at_login,
    sample_interval: s.sample_interval ?? "",
    max_duplicate_children: dup ? String(dup) : "",
    restart_on_fd_pressure: !!s.restart_on_fd_pressure,
    nofile_soft_limit: nofile === undefined ? "" : String(nofile),
    update_feed: s.update_feed ?? "",
    update_automatically: !!s.update_automatically,
    ssh_config: s.ssh_config ?? "",
    disconnect_grace: s.disconnect_grace ?? "",
  };
}

export type SettingsErrors = Partial<Record<SettingsKey, string>>;

function durationError(key: DurationKey, text: string): string | null {
  const r = DURATIONS[key];
  const ms = parseGoDuration(text);
  if (ms === null) return `Use a duration like ${r.example}`;
  if (ms < 0) return "Must not be negative";
  if (ms < r.lo) return `Must be at least ${formatSpan(r.lo)}`;
  if (ms > r.hi) return `Must be at most ${formatSpan(r.hi)}`;
  return null;
}

function countError(key: IntKey, text: string): string | null {
  const max = INTS[key].max;
  const n = parseCount(text);
  if (Number.isNaN(n)) return `Enter a whole number from 0 to ${max.toLocaleString("en-US")}`;
  if (n > max) return `Must be at most ${max.toLocaleString("en-US")}`;
  return null;
}

/**
 * Mirrors Go's filepath.IsAbs on the engine's platform for the ssh config
 * file (ssh -F), which must not depend on the app's working directory; ""
 * is ssh's own file.
 */
export function sshConfigError(path: string): string | null {
  if (path === "") return null;
  const windows = currentQuoting() === "windows";
  const absolute = windows ? /^([A-Za-z]:[\\/]|[\\/]{2}[^\\/]+[\\/][^\\/]+)/.test(path) : path.startsWith("/");
  if (absolute) return null;
  return windows ? "Use a full path like C:\\Users\\you\\.ssh\\config" : "Use a full path like /home/you/.ssh/config";
}

// The ready pattern, health path and grace period are checked the same way
// where a backend gives its own (the Add backend form): Go's
// settings.validateReadiness. "" is valid in each (the default).

/** The ready pattern's error, or null. */
export function readyRegexError(re: string): string | null {
  if (re === "") return null;
  // What Go's RE2 has no such thing as: JavaScript would accept it, Go
  // refuse it, and the form would show that only in a second round.
  if (/\(\?(=|!|<=|<!|>)/.test(re)) return "Lookarounds and atomic groups are not supported (Go's regular expressions)";
  if (/(^|[^\\])(\\\\)*\\[1-9]/.test(re)) return "Backreferences like \\1 are not supported (Go's regular expressions)";
  // null: JavaScript cannot read it ((?i:x) is Go's, not JavaScript's):
  // Go decides.
  return captureGroups(re) === 0 ? "The pattern needs a capture group for the port, like port=(\\d+)" : null;
}

/** The health path's error, or null. */
export function healthPathError(hp: string): string | null {
  if (hp !== "" && !hp.startsWith("/")) return "Must start with /";
  return /\s/.test(hp) ? "Must not contain spaces" : null;
}

/** The grace period's error, or null. */
export function graceError(text: string): string | null {
  return text === "" ? null : durationError("grace", text);
}

/** Field errors the Go side would also reject. Empty text fields mean "default". */
export function validateSettings(s: SettingsDraft): SettingsErrors {
  const errs: SettingsErrors = {};
  const cmd = s.backend_command.trim();
  if (cmd !== "") {
    const e = commandError(cmd);
    if (e) errs.backend_command = e;
  }
  const re = readyRegexError(s.ready_regex.trim());
  if (re) errs.ready_regex = re;
  const hp = healthPathError(s.health_path.trim());
  if (hp) errs.health_path = hp;
  for (const key of Object.keys(DURATIONS) as DurationKey[]) {
    const v = s[key].trim();
    const e = v === "" ? null : durationError(key, v);
    if (e) errs[key] = e;
  }
  for (const key of Object.keys(INTS) as IntKey[]) {
    const v = s[key].trim();
    const e = v === "" ? null : countError(key, v);
    if (e) errs[key] = e;
  }
  // The update feed is Go's to judge (App.FeedURLError, asked as it is
  // typed; Save's refusal says the same).
  const ssh = sshConfigError(s.ssh_config.trim());
  if (ssh) errs.ssh_config = ssh;
  return errs;
}

export function hasErrors(e: SettingsErrors): boolean {
  return Object.keys(e).length > 0;
}

function same(key: SettingsKey, a: SettingsDraft, b: SettingsDraft, defaults?: SettingsDraft): boolean {
  if (isBoolKey(key)) return !!a[key] === !!b[key];
  // With the defaults known, empty is the default's value: a field typed
  // into and put back to its default (or Reset to defaults) is unchanged.
  const def = defaults ? (defaults[key] as string).trim() : "";
  const x = a[key].trim() || def;
  const y = b[key].trim() || def;
  if (x === y) return true;
  if (isDurationKey(key)) {
    const dx = parseGoDuration(x);
    const dy = parseGoDuration(y);
    return dx !== null && dx === dy;
  }
  if (key === "max_duplicate_children") {
    // Empty and 0 both mean "off".
    return (x === "" ? 0 : parseCount(x)) === (y === "" ? 0 : parseCount(y));
  }
  if (key === "nofile_soft_limit") {
    // Empty means "the default", which is not the same as typing it.
    return x !== "" && y !== "" && parseCount(x) === parseCount(y);
  }
  return false;
}

/** Keys whose values differ ("5s" and "5000ms" are the same duration). */
export function diffSettings(a: SettingsDraft, b: SettingsDraft, defaults?: SettingsDraft): SettingsKey[] {
  return SETTINGS_KEYS.filter((k) => !same(k, a, b, defaults));
}

/** Keys set to something other than the default; "" counts as the default. */
export function customizedKeys(s: SettingsDraft, defaults: SettingsDraft): SettingsKey[] {
  return SETTINGS_KEYS.filter((k) => {
    if (!isBoolKey(k) && s[k].trim() === "") return false;
    return !same(k, s, defaults);
  });
}

/** The draft with its text trimmed, as validated and saved. */
export function normalizeDraft(d: SettingsDraft): SettingsDraft {
  const out = { ...d };
  for (const k of SETTINGS_KEYS) {
    if (isBoolKey(k)) out[k] = !!d[k];
    else out[k] = d[k].trim();
  }
  return out;
}

/** The form's values as Go's settings fields (empty text: the default). */
function draftValues(draft: SettingsDraft): Record<SettingsKey, Settings[SettingsKey]> {
  const d = normalizeDraft(draft);
  return {
    backend_command: d.backend_command,
    ready_regex: d.ready_regex,
    health_path: d.health_path,
    grace: d.grace,
    min_orphan_age: d.min_orphan_age,
    start_at_login: d.start_at_login,
    sample_interval: d.sample_interval,
    max_duplicate_children: d.max_duplicate_children === "" ? 0 : parseCount(d.max_duplicate_children),
    restart_on_fd_pressure: d.restart_on_fd_pressure,
    // Empty is sent as absent (Go: the default); 0 as 0 (off).
    nofile_soft_limit: d.nofile_soft_limit === "" ? undefined : parseCount(d.nofile_soft_limit),
    update_feed: d.update_feed,
    update_automatically: d.update_automatically,
    ssh_config: d.ssh_config,
    disconnect_grace: d.disconnect_grace,
  };
}

/**
 * What Save sends: the fields the person changed, by name, and their values,
 * nothing else. Go lays them over the settings saved now (settings.Edit), so
 * what this page did not edit, the backend list above all, stays as the
 * engine has it, however old the page's copy is.
 */
export function settingsEdit(draft: SettingsDraft, changed: readonly SettingsKey[]): SettingsEdit {
  const values = draftValues(draft);
  const settings: Partial<Settings> = {};
  for (const k of changed) (settings as Record<string, unknown>)[k] = values[k];
  return { settings, fields: [...changed] };
}

/**
 * Go's settings.Edit.Apply, for the preview and the tests: the named fields
 * laid over what is saved; the backend list is not a field an edit names.
 */
export function applyEdit(saved: Settings, edit: SettingsEdit): Settings {
  const out: Record<string, unknown> = { ...saved };
  for (const k of edit.fields) {
    if (k === "backends") throw `settings: not a field the Settings page edits: "${k}"`;
    out[k] = (edit.settings as Record<string, unknown>)[k];
  }
  const next = out as unknown as Settings;
  if (next.backend_command !== saved.backend_command && next.backend_command !== "" && !backendCommandInUse(saved)) {
    throw "backend command: not used while backends are listed; each backend on the Backends page has its own command";
  }
  return next;
}

/**
 * Whether the Backend command field is used: only while no backend is
 * listed (Go: Config.ApplySettings); once the Backends page has saved a
 * list, each backend has its own command.
 */
export function backendCommandInUse(saved: Settings): boolean {
  return (saved.backends?.length ?? 0) === 0;
}

/**
 * What the page says once a save changed these keys. heldBy names, per
 * key, the flag or environment variable that wins over the saved value
 * (Go: instance.update.feed_from / automatic_from); buildOff says updates
 * are off in this build whatever is saved (Go: instance.update.build_off),
 * so a saved feed is kept but not used.
 */
export function savedText(changed: SettingsKey[], heldBy: Partial<Record<SettingsKey, string>> = {}, buildOff = false): string {
  const held = [...new Set(changed.flatMap((k) => (heldBy[k] ? [heldBy[k]] : [])))];
  const free = changed.filter((k) => !heldBy[k]);
  const unused: SettingsKey[] = buildOff ? free.filter((k) => k === "update_feed" || k === "update_automatically") : [];
  const now = free.filter((k) => APPLIED_AT_ONCE.includes(k) && !unused.includes(k));
  const later = free.length - now.length - unused.length;
  const parts: string[] = [];
  if (later > 0) parts.push(now.length > 0 ? "some changes apply now, the rest when you restart Hermes Desktop" : "restart Hermes Desktop to apply");
  if (unused.length > 0) {
    parts.push(`updates are off in this build of Hermes Desktop, so ${unused.includes("update_feed") ? "the feed is not used" : "this changes nothing"}`);
  }
  if (held.length > 0) parts.push(`${held.join(" and ")} still ${held.length > 1 ? "win" : "wins"} over the saved value`);
  // App.AddBackend reads them as saved now: a backend added next uses them.
  if (free.some((k) => (READINESS_KEYS as readonly string[]).includes(k))) parts.push("backends you add from now on use it at once");
  // A running backend keeps the command it started with (Go: the
  // supervisor's spec): say so, or Try again looks broken.
  if (free.includes("backend_command")) parts.push("until then, Start and Try again run the backend's old command");
  // Go: Launcher.SettingsSaved; a connection that is up keeps its file.
  if (free.includes("ssh_config")) parts.push("connections made from now on read the new SSH config file (a host already connected keeps its own until Hermes Desktop restarts)");
  return parts.length === 0 ? "Saved and applied" : `Saved — ${parts.join("; ")}`;
}

/**
 * The form after "Reset to defaults": every field at its default, but the
 * backend command as saved while a backend list makes it unused (its field
 * is read-only then).
 */
export function resetToDefaults(defaults: Settings, saved?: Settings): SettingsDraft {
  const d = toDraft(defaults);
  if (saved && !backendCommandInUse(saved)) d.backend_command = saved.backend_command ?? "";
  return d;
}
