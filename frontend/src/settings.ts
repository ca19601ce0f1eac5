// Settings form logic: validation that mirrors the Go side, and diffs.

import type { Settings } from "./types";

export type SettingsKey = keyof Settings;
export type TextKey = Exclude<SettingsKey, "start_at_login">;

export const SETTINGS_KEYS: SettingsKey[] = [
  "backend_command",
  "ready_regex",
  "health_path",
  "grace",
  "min_orphan_age",
  "start_at_login",
];

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  "µs": 1e-3,
  "μs": 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/**
 * Parses a Go duration ("5s", "3m0s", "1h30m", "1.5s", "-2s", "0") to
 * milliseconds; null when Go's time.ParseDuration would reject it.
 */
export function parseGoDuration(input: string): number | null {
  let s = input.trim();
  if (s === "") return null;
  let sign = 1;
  if (s[0] === "-" || s[0] === "+") {
    if (s[0] === "-") sign = -1;
    s = s.slice(1);
  }
  if (s === "0") return 0;
  if (s === "") return null;
  const re = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;
  let total = 0;
  let pos = 0;
  while (pos < s.length) {
    re.lastIndex = pos;
    const m = re.exec(s);
    if (!m) return null;
    total += parseFloat(m[1]) * UNIT_MS[m[2]];
    pos = re.lastIndex;
  }
  return sign * total;
}

/** Mirrors backend.SplitCommand's quoting rules; returns an error or null. */
export function commandError(line: string): string | null {
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) return "Unterminated ' quote";
      i = end;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < line.length && line[j] !== '"'; j++) {
        if (line[j] === "\\" && j + 1 < line.length && (line[j + 1] === '"' || line[j + 1] === "\\")) j++;
      }
      if (j >= line.length) return 'Unterminated " quote';
      i = j;
    } else if (c === "\\") {
      if (i + 1 >= line.length) return "The command ends with a backslash";
      i++;
    }
  }
  return null;
}

/**
 * Number of capture groups in a pattern, or null when JavaScript cannot
 * compile it. Go (RE2) syntax mostly matches; the Go-only spellings that
 * ready patterns use are translated first, so a null here is not proof the
 * pattern is wrong; the Go side has the last word.
 */
export function captureGroups(pattern: string): number | null {
  let src = pattern.replace(/\(\?P</g, "(?<");
  const flags = /^\(\?([imsU]+)\)/.exec(src);
  let jsFlags = "";
  if (flags) {
    src = src.slice(flags[0].length);
    if (flags[1].includes("i")) jsFlags += "i";
    if (flags[1].includes("m")) jsFlags += "m";
    if (flags[1].includes("s")) jsFlags += "s";
  }
  try {
    const m = new RegExp(src + "|", jsFlags).exec("");
    return m ? m.length - 1 : 0;
  } catch {
    return null;
  }
}

export type SettingsErrors = Partial<Record<SettingsKey, string>>;

/** Field errors the Go side would also reject. Empty text fields mean "default". */
export function validateSettings(s: Settings): SettingsErrors {
  const errs: SettingsErrors = {};
  const cmd = s.backend_command.trim();
  if (cmd !== "") {
    const e = commandError(cmd);
    if (e) errs.backend_command = e;
  }
  const re = s.ready_regex.trim();
  if (re !== "" && captureGroups(re) === 0) {
    errs.ready_regex = "The pattern needs a capture group for the port, like port=(\\d+)";
  }
  const hp = s.health_path.trim();
  if (hp !== "" && !hp.startsWith("/")) errs.health_path = "Must start with /";
  else if (/\s/.test(hp)) errs.health_path = "Must not contain spaces";
  const g = s.grace.trim();
  if (g !== "") {
    const ms = parseGoDuration(g);
    if (ms === null) errs.grace = "Use a duration like 5s, 1m or 1m30s";
    else if (ms < 0) errs.grace = "Must not be negative";
  }
  const age = s.min_orphan_age.trim();
  if (age !== "") {
    const ms = parseGoDuration(age);
    if (ms === null) errs.min_orphan_age = "Use a duration like 3m, 90s or 1h";
    else if (ms < 0) errs.min_orphan_age = "Must not be negative";
  }
  return errs;
}

export function hasErrors(e: SettingsErrors): boolean {
  return Object.keys(e).length > 0;
}

function same(key: SettingsKey, a: Settings, b: Settings): boolean {
  if (key === "start_at_login") return a.start_at_login === b.start_at_login;
  const x = a[key].trim();
  const y = b[key].trim();
  if (x === y) return true;
  if (key === "grace" || key === "min_orphan_age") {
    const dx = parseGoDuration(x);
    const dy = parseGoDuration(y);
    return dx !== null && dx === dy;
  }
  return false;
}

/** Keys whose values differ ("5s" and "5000ms" are the same duration). */
export function diffSettings(a: Settings, b: Settings): SettingsKey[] {
  return SETTINGS_KEYS.filter((k) => !same(k, a, b));
}

/** Keys set to something other than the default; "" counts as the default. */
export function customizedKeys(s: Settings, defaults: Settings): SettingsKey[] {
  return SETTINGS_KEYS.filter((k) => {
    if (k !== "start_at_login" && s[k].trim() === "") return false;
    return !same(k, s, defaults);
  });
}

/** What Save sends: text trimmed, empty text left empty (the Go side reads it as the default). */
export function normalizeSettings(s: Settings): Settings {
  return {
    backend_command: s.backend_command.trim(),
    ready_regex: s.ready_regex.trim(),
    health_path: s.health_path.trim(),
    grace: s.grace.trim(),
    min_orphan_age: s.min_orphan_age.trim(),
    start_at_login: !!s.start_at_login,
  };
}

/** The form after "Reset to defaults": every field at its default. */
export function resetToDefaults(defaults: Settings): Settings {
  return { ...defaults };
}
