// The Add backend form: its draft, the checks Go makes (so a mistake shows
// before the round trip) and the BackendSetting it becomes.

import { BACKEND_FIELD_LABELS, commandError, FIELD_LABELS, graceError, healthPathError, readyRegexError } from "./settings";
import type { BackendKind, BackendSetting } from "./types";

export interface AddDraft {
  name: string;
  kind: BackendKind;
  /** Hermes profile, dashboard and serve only; "" = Hermes' default. */
  profile: string;
  /** The command line, custom only. */
  command: string;
  /** The backend's own ready pattern, health path and grace period,
   *  custom only; "" = the shared one in Settings. */
  ready_regex: string;
  health_path: string;
  grace: string;
  /** The ssh destination it runs on, any kind; "" = this computer. */
  host: string;
}

/** The fields of a custom backend's own readiness, in form order. */
export const READINESS_FIELDS = ["ready_regex", "health_path", "grace"] as const;
export type ReadinessField = (typeof READINESS_FIELDS)[number];

/** What an empty readiness field stands for: the shared settings saved now
 *  (or their defaults); null until they are read. */
export type SharedReadiness = Record<ReadinessField, string>;

export type AddField = keyof AddDraft;
export type AddErrors = Partial<Record<AddField, string>>;

export interface AddForm {
  open: boolean;
  draft: AddDraft;
  /** Field errors, shown once the user tried to save. */
  errors: AddErrors;
  /** Those of errors Go found (the form's checks passed), each kept until
   *  its field is edited. */
  refused: AddErrors;
  saving: boolean;
  /** The Go side's refusal when no field is to blame, shown under the form. */
  error: string;
  /** What the empty readiness fields stand for, read when the form opens. */
  shared: SharedReadiness | null;
}

export function emptyAddForm(): AddForm {
  const draft: AddDraft = { name: "", kind: "dashboard", profile: "", command: "", ready_regex: "", health_path: "", grace: "", host: "" };
  return { open: false, draft, errors: {}, refused: {}, saving: false, error: "", shared: null };
}

/** lockfile.ValidName's pattern: a name becomes part of file names. */
export const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** The draft with the whitespace a person did not mean trimmed off. */
export function normalizeAddDraft(d: AddDraft): AddDraft {
  return {
    ...d,
    name: d.name.trim(),
    profile: d.profile.trim(),
    command: d.command.trim(),
    ready_regex: d.ready_regex.trim(),
    health_path: d.health_path.trim(),
    grace: d.grace.trim(),
    host: d.host.trim(),
  };
}

/** Field errors for a (normalized) draft; taken are the names in use. */
export function validateAdd(d: AddDraft, taken: readonly string[]): AddErrors {
  const e: AddErrors = {};
  if (d.name === "") e.name = "Enter a name";
  else if (!NAME_PATTERN.test(d.name)) {
    e.name =
      d.name.length > 64
        ? "At most 64 characters"
        : "Use letters, digits, '.', '_' or '-', starting with a letter or digit";
  } else if (windowsDevice(d.name)) {
    e.name = `${d.name.split(".")[0].toUpperCase()} is a device name on Windows, not a name a file can have: choose another`;
  } else {
    // Go's settings.SameName: names that differ only in case are one log
    // file where file names ignore case (Windows, macOS).
    const same = taken.find((t) => t.toLowerCase() === d.name.toLowerCase());
    if (same !== undefined) e.name = same === d.name ? `A backend is already named ${d.name}` : `A backend is already named ${same} (names that differ only in upper and lower case count as the same)`;
  }
  if (d.kind === "custom") {
    if (d.command === "") e.command = "Enter the command that starts the server";
    else {
      const bad = commandError(d.command); // as Go's cmdline.Split would refuse it
      if (bad) e.command = bad;
    }
    // The Settings page's rules (Go checks both the same way).
    const checks: Record<ReadinessField, (v: string) => string | null> = { ready_regex: readyRegexError, health_path: healthPathError, grace: graceError };
    for (const f of READINESS_FIELDS) {
      const err = checks[f](d[f]);
      if (err) e[f] = err;
    }
  } else if (d.profile !== "") {
    // Passed as `--profile P`: a P that looks like a flag or holds spaces
    // would not be read as one profile name.
    if (d.profile.startsWith("-")) e.profile = "A profile name does not start with '-'";
    else if (/\s/.test(d.profile)) e.profile = "A profile name has no spaces";
  }
  const host = hostError(d.host);
  if (host) e.host = host;
  return e;
}

/** Mirrors Go's settings.windowsDevice: CON, NUL, COM1... (before any '.'). */
export function windowsDevice(name: string): boolean {
  const base = name.split(".")[0].toUpperCase();
  return ["CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"].includes(base) || /^(COM|LPT)[0-9]$/.test(base);
}

/**
 * The first check of Go's settings.ValidateHost, which has the last word
 * (its refusal lands on the host field): "" is this computer; a host holds
 * only what an ssh destination can (letters, digits, . - _ @ : [ ] % $ +
 * and the / of ssh://), so no shell syntax reaches ssh's ProxyCommand.
 */
export function hostError(host: string): string | null {
  if (host === "") return null;
  if (host.startsWith("-")) return "A host does not start with '-'";
  if (/[\u0000-\u0020\u007f]/.test(host)) return "A host has no spaces";
  const bad = /[^A-Za-z0-9._@:[\]%$+\/-]/.exec(host);
  if (bad) return `A host cannot hold '${bad[0]}'`;
  if (new TextEncoder().encode(host).length > 255) return "At most 255 characters";
  return null;
}

export function hasAddErrors(e: AddErrors): boolean {
  return Object.keys(e).length > 0;
}

/** What AddBackend is sent: only the fields the chosen kind uses, and of
 *  the readiness fields only those filled in (empty: the shared one). */
export function toBackendSetting(d: AddDraft): BackendSetting {
  const b: BackendSetting = { name: d.name, kind: d.kind };
  if (d.kind === "custom") {
    b.command = d.command;
    for (const f of READINESS_FIELDS) if (d[f] !== "") b[f] = d[f];
  } else if (d.profile !== "") b.args = ["--profile", d.profile];
  if (d.host !== "") b.host = d.host;
  return b;
}

/**
 * Go's refusal of an AddBackend, laid on the fields it names (its
 * settings.Backend.Validate words: "backend web: grace period: ..."), one
 * error per line; what names no field is left for under the form.
 */
export function refusalByField(message: string): { errors: AddErrors; rest: string } {
  const errors: AddErrors = {};
  const rest: string[] = [];
  for (const raw of message.split("\n")) {
    const line = raw.replace(/^bad request: /i, "").replace(/^backend ("[^"]*"|\S+): /i, "");
    const field = REFUSAL_FIELDS.find(([, re]) => re.test(line))?.[0];
    if (!field || errors[field]) {
      rest.push(raw);
      continue;
    }
    const text = line.replace(LABEL_PREFIX, "");
    errors[field] = text.charAt(0).toUpperCase() + text.slice(1);
  }
  return { errors, rest: rest.join("\n") };
}

/** Go starts a readiness field's error with the label the page shows
 *  (settings.Labels), a command's with "command". */
const startsWith = (label: string) => new RegExp(`^${label}: `);
const REFUSAL_FIELDS: [AddField, RegExp][] = [
  ["name", /^a name is |already named |name is taken|another backend has this name|is a device name on Windows/],
  ["command", /^command: |needs a command/],
  ["ready_regex", startsWith(FIELD_LABELS.ready_regex)],
  ["health_path", startsWith(FIELD_LABELS.health_path)],
  ["grace", startsWith(FIELD_LABELS.grace)],
  ["host", startsWith(BACKEND_FIELD_LABELS.host)],
];
const LABEL_PREFIX = new RegExp(`^(command|${FIELD_LABELS.ready_regex}|${FIELD_LABELS.health_path}|${FIELD_LABELS.grace}|${BACKEND_FIELD_LABELS.host}): `);
