// The Add backend form: its draft, the checks Go makes (so a mistake shows
// before the round trip) and the BackendSetting it becomes.

import { commandError } from "./settings";
import type { BackendKind, BackendSetting } from "./types";

export interface AddDraft {
  name: string;
  kind: BackendKind;
  /** Hermes profile, dashboard and serve only; "" = Hermes' default. */
  profile: string;
  /** The command line, custom only. */
  command: string;
}

export type AddField = keyof AddDraft;
export type AddErrors = Partial<Record<AddField, string>>;

export interface AddForm {
  open: boolean;
  draft: AddDraft;
  /** Field errors, shown once the user tried to save. */
  errors: AddErrors;
  saving: boolean;
  /** The Go side's refusal, shown under the form. */
  error: string;
}

export function emptyAddForm(): AddForm {
  return { open: false, draft: { name: "", kind: "dashboard", profile: "", command: "" }, errors: {}, saving: false, error: "" };
}

/** lockfile.ValidName's pattern: a name becomes part of file names. */
export const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** The draft with the whitespace a person did not mean trimmed off. */
export function normalizeAddDraft(d: AddDraft): AddDraft {
  return { ...d, name: d.name.trim(), profile: d.profile.trim(), command: d.command.trim() };
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
  } else if (taken.includes(d.name)) e.name = `A backend is already named ${d.name}`;
  if (d.kind === "custom") {
    if (d.command === "") e.command = "Enter the command that starts the server";
    else {
      const bad = commandError(d.command); // as Go's cmdline.Split would refuse it
      if (bad) e.command = bad;
    }
  } else if (d.profile !== "") {
    // Passed as `--profile P`: a P that looks like a flag or holds spaces
    // would not be read as one profile name.
    if (d.profile.startsWith("-")) e.profile = "A profile name does not start with '-'";
    else if (/\s/.test(d.profile)) e.profile = "A profile name has no spaces";
  }
  return e;
}

export function hasAddErrors(e: AddErrors): boolean {
  return Object.keys(e).length > 0;
}

/** What AddBackend is sent: only the fields the chosen kind uses. */
export function toBackendSetting(d: AddDraft): BackendSetting {
  if (d.kind === "custom") return { name: d.name, kind: d.kind, command: d.command };
  return d.profile === "" ? { name: d.name, kind: d.kind } : { name: d.name, kind: d.kind, args: ["--profile", d.profile] };
}
