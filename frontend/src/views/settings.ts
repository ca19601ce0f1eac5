import { h } from "../dom";
import { formatSpan } from "../format";
import { backendCommandInUse, customizedKeys, diffSettings, FIELD_LABELS, parseGoDuration, toDraft, type BoolKey, type SettingsDraft, type TextKey } from "../settings";
import { shownNotices, type AppState } from "../state";
import { banner, button, emptyState, icon, inlineError, pageHeader } from "../ui";
import { automaticNote, feedNote, type UpdateInfo } from "../update";

interface FieldSpec {
  key: TextKey;
  label: string;
  help: string;
  mono: boolean;
  /** A short value (a duration or a count): a narrower box. */
  short?: boolean;
  /** A Go duration: its default is shown as a person says it ("3 min"). */
  duration?: boolean;
  /** Shown when the default is empty, e.g. "Off". */
  emptyDefault?: string;
  inputmode?: "numeric";
}

interface CheckSpec {
  key: BoolKey;
  label: string;
  help: string;
}

export const FIELDS: FieldSpec[] = [
  {
    key: "backend_command",
    label: FIELD_LABELS.backend_command,
    help: "The command of the one backend Hermes Desktop runs while no backends are listed on the Backends page, quoted as in a terminal (on Windows: double quotes around paths with spaces). Leave empty for the built-in default. A change applies when Hermes Desktop restarts.",
    mono: true,
  },
  {
    key: "ready_regex",
    label: FIELD_LABELS.ready_regex,
    help: "A regular expression matched against the backend's output; its first group is the port it listens on. A Custom backend may set its own when you add it.",
    mono: true,
  },
  {
    key: "health_path",
    label: FIELD_LABELS.health_path,
    help: "Requested once the port is known; the backend counts as ready when it answers. A Custom backend may set its own when you add it.",
    mono: true,
  },
  {
    key: "grace",
    label: FIELD_LABELS.grace,
    help: "How long a backend may take to exit after being asked to stop, before it is killed. For example 5s.",
    mono: false,
    short: true,
    duration: true,
  },
  {
    key: "min_orphan_age",
    label: FIELD_LABELS.min_orphan_age,
    help: "Leftover processes younger than this are never reaped at startup. For example 3m.",
    mono: false,
    short: true,
    duration: true,
  },
];

const START_AT_LOGIN: CheckSpec = {
  key: "start_at_login",
  label: "Start at login",
  help: "Open Hermes Desktop when you log in.",
};

export const LEAK_FIELDS: FieldSpec[] = [
  {
    key: "sample_interval",
    label: FIELD_LABELS.sample_interval,
    help: "How often each backend's processes are measured for these checks and the Process tree, from 100 ms to 1 h. For example 5s.",
    mono: false,
    short: true,
    duration: true,
  },
  {
    key: "max_duplicate_children",
    label: FIELD_LABELS.max_duplicate_children,
    help: "When more than this many helper processes of a backend share one command line, the oldest are stopped and the newest kept. Empty or 0 turns this off; at most 1,000.",
    mono: false,
    short: true,
    emptyDefault: "Off",
    inputmode: "numeric",
  },
  {
    key: "nofile_soft_limit",
    label: FIELD_LABELS.nofile_soft_limit,
    help: "Before a backend starts, its open-file limit is raised to at least this many files (never lowered, and capped by the system). 0 turns this off.",
    mono: false,
    short: true,
    emptyDefault: "4096",
    inputmode: "numeric",
  },
];

export const UPDATE_FEED: FieldSpec = {
  key: "update_feed",
  label: FIELD_LABELS.update_feed,
  help: "The URL of the update manifest, like https://example.com/hermes-desktop/stable.json: https, or http only on this machine. Empty turns updates off; there is no default feed yet. A change applies at once: the next check asks the new feed.",
  mono: true,
  emptyDefault: "None: updates off",
};

/** The same field in a build that does not update itself: no "applies at
 *  once" beside "Updates are off". */
const UPDATE_FEED_BUILD_OFF: FieldSpec = {
  ...UPDATE_FEED,
  help: "The URL of the update manifest, like https://example.com/hermes-desktop/stable.json. This build of Hermes Desktop does not update itself: a feed saved here is kept, and used by a build that does.",
};

/** The connections of backends on another host (a backend's Host). */
export const REMOTE_FIELDS: FieldSpec[] = [
  {
    key: "ssh_config",
    label: FIELD_LABELS.ssh_config,
    help: "The ssh config file the connections to your backends' hosts read (ssh -F), as a full path: for hosts, keys or a ProxyJump you keep apart from your terminal's. Empty: ssh's own, as in your terminal. A change applies when Hermes Desktop restarts.",
    mono: true,
    emptyDefault: "ssh's own (~/.ssh/config)",
  },
  {
    key: "disconnect_grace",
    label: FIELD_LABELS.disconnect_grace,
    help: "How long a backend on another host keeps running while its connection is silent (a network drop, a closed lid), so Hermes Desktop can reconnect to it; past this, its host stops it. From 3 s to 1 h, for example 30s. A change applies when Hermes Desktop restarts.",
    mono: false,
    short: true,
    duration: true,
  },
];

const UPDATE_AUTOMATICALLY: CheckSpec = {
  key: "update_automatically",
  label: "Update automatically when idle",
  help: "Install a downloaded update without asking, once no backend is starting or restarting; the backends keep running. Applies at once.",
};

const FD_RESTART: CheckSpec = {
  key: "restart_on_fd_pressure",
  label: "Restart before running out of files",
  help: "Restart a backend when one of its processes has 95% of its open-file limit in use, before it starts failing with “too many open files”.",
};

/** Backend command's note once the Backends page has saved a list. */
export const BACKEND_COMMAND_UNUSED =
  "Not used: your backends are listed on the Backends page, and each runs its own command. To run another command, add a Custom backend there (and remove the old one).";

/** What the running app does instead of what the field says, if anything. */
function fieldNote(id: string, text: string | null): HTMLElement | null {
  return text ? h("p.field-note", { id }, icon("info", 13), h("span", null, text)) : null;
}

/** What an empty box shows: the default, a duration as a person says it
 *  ("3 min (default)", not Go's "3m0s"). */
function placeholder(f: FieldSpec, def: string): string {
  if (!def) return f.emptyDefault || "Built-in default";
  const ms = f.duration ? parseGoDuration(def) : null;
  return ms === null ? def : `${formatSpan(ms)} (default)`;
}

function field(f: FieldSpec, draft: SettingsDraft, defaults: SettingsDraft, error: string | undefined, custom: boolean, noteText: string | null = null, readOnly = false): HTMLElement {
  const id = `set-${f.key}`;
  const helpId = `${id}-help`;
  const errId = `${id}-err`;
  const note = fieldNote(`${id}-note`, noteText);
  const described = [error ? errId : "", helpId, note ? note.id : ""].filter((x) => x).join(" ");
  return h(
    "div.field",
    { class: error ? "has-error" : null },
    h("label.field-label", { for: id }, f.label, custom ? h("span.chip.chip-accent", { title: "Differs from the default" }, "custom") : null),
    h("input", {
      id,
      type: "text",
      class: ["input", f.mono ? "mono" : "", f.short ? "input-short" : ""].join(" ").replace(/\s+/g, " ").trim(),
      value: draft[f.key],
      placeholder: placeholder(f, defaults[f.key]),
      inputmode: f.inputmode ?? null,
      "data-input": "setting",
      "data-field": f.key,
      readonly: readOnly,
      spellcheck: "false",
      autocomplete: "off",
      "aria-invalid": error ? "true" : null,
      "aria-describedby": described,
    }),
    error ? h("div.field-error", { id: errId }, icon("warning", 13), h("span", null, error)) : null,
    h("p.field-help", { id: helpId }, f.help),
    note,
  );
}

function check(c: CheckSpec, draft: SettingsDraft, defaults: SettingsDraft, custom: boolean, noteText: string | null = null): HTMLElement {
  const id = `set-${c.key}`;
  const note = fieldNote(`${id}-note`, noteText);
  return h(
    "div.field.field-check",
    null,
    h(
      "label.check",
      { for: id },
      h("input", {
        id,
        type: "checkbox",
        checked: draft[c.key],
        "data-input": "setting",
        "data-field": c.key,
        "aria-describedby": note ? `${id}-help ${note.id}` : `${id}-help`,
      }),
      h("span.check-box", { "aria-hidden": "true" }, icon("check", 12)),
      h("span.field-label", null, c.label, custom ? h("span.chip.chip-accent", { title: "Differs from the default" }, "custom") : null),
    ),
    h("p.field-help", { id: `${id}-help` }, `${c.help} Default: ${defaults[c.key] ? "on" : "off"}.`),
    note,
  );
}

function section(id: string, title: string, sub: string | null, ...body: HTMLElement[]): HTMLElement {
  return h(
    "div.form-section",
    { role: "group", "aria-labelledby": `${id}-title`, "data-key": id },
    h("div.form-section-head", null, h("h2.form-section-title", { id: `${id}-title` }, title), sub ? h("p.form-section-sub", null, sub) : null),
    ...body,
  );
}

export function settingsView(s: AppState): HTMLElement {
  const st = s.settings;
  const notices = shownNotices(s.status);
  const head = pageHeader("Settings", st.view?.path ? `Saved in ${st.view.path}` : null);

  if (st.load === "idle" || st.load === "loading" || (!st.view && st.load !== "error")) {
    return h("section.page", null, head, h("div.loading-inline", null, h("span.spinner"), "Loading settings…"));
  }
  const form = settingsForm(s);
  if (st.load === "error" || !st.view || !form) {
    return h(
      "section.page",
      null,
      head,
      emptyState("warning", "Settings could not be loaded", st.loadError || "Unknown error", [
        button("Retry", { action: "settings-reload", icon: "restart", variant: "primary" }),
      ]),
    );
  }

  // The same notice may come from both places; show it once.
  const warn = [...new Set([st.view.notice ?? "", ...notices])]
    .filter((n) => n)
    .map((n) => banner("warn", n, { key: `notice:${n}` }));

  return h("section.page", null, head, ...warn, form);
}

/**
 * The form alone, null until the settings are loaded: all that a keystroke
 * in it can change, so the app re-renders it alone while the user types.
 */
export function settingsForm(s: AppState): HTMLElement | null {
  const st = s.settings;
  if (st.load !== "ready" || !st.view || !st.draft) return null;
  const draft = st.draft;
  const defaults = toDraft(st.view.defaults);
  const update = s.status?.instance.update as UpdateInfo | undefined;
  const dirty = diffSettings(draft, toDraft(st.view.settings), toDraft(st.view.defaults)).length > 0;
  const custom = new Set(customizedKeys(draft, defaults));
  const atDefaults = custom.size === 0;
  // A saved backend list decides the commands; the field is kept, read-only,
  // to say so (Go: Config.ApplySettings, settings.ErrBackendCommandUnused).
  const listed = !backendCommandInUse(st.view.settings);

  const relaunch = pendingRelaunch(s);
  const relaunchError = inlineError(s.errors.get("relaunch"));
  const result = st.result
    ? h(st.result.ok ? "div.save-result.ok" : "div.save-result.bad", { role: st.result.ok ? "status" : "alert" }, icon(st.result.ok ? "check" : "warning", 15), h("span", null, st.result.text))
    : null;

  return h(
    "form.card.settings-form",
    { "data-form": "settings", novalidate: true },
    section(
      "set-general",
      "General",
      null,
      ...FIELDS.map((f) =>
        f.key === "backend_command"
          ? field(f, draft, defaults, st.errors[f.key], custom.has(f.key), listed ? BACKEND_COMMAND_UNUSED : null, listed)
          : field(f, draft, defaults, st.errors[f.key], custom.has(f.key)),
      ),
      check(START_AT_LOGIN, draft, defaults, custom.has(START_AT_LOGIN.key)),
    ),
    section(
      "set-leak",
      "Leak guard",
      "Watches each backend's helper processes so leaks are caught before they break it.",
      ...LEAK_FIELDS.map((f) => field(f, draft, defaults, st.errors[f.key], custom.has(f.key))),
      check(FD_RESTART, draft, defaults, custom.has(FD_RESTART.key)),
    ),
    section(
      "set-remote",
      "Remote hosts",
      "For backends that run on another computer over SSH (a backend's Host on the Backends page).",
      ...REMOTE_FIELDS.map((f) => field(f, draft, defaults, st.errors[f.key], custom.has(f.key))),
    ),
    section(
      "set-updates",
      "Updates",
      "Where new versions of Hermes Desktop come from, and whether they install themselves. A flag or environment variable wins over these.",
      field(update?.build_off ? UPDATE_FEED_BUILD_OFF : UPDATE_FEED, draft, defaults, st.errors.update_feed, custom.has(UPDATE_FEED.key), feedNote(update)),
      check(UPDATE_AUTOMATICALLY, draft, defaults, custom.has(UPDATE_AUTOMATICALLY.key), automaticNote(update)),
    ),
    h(
      "div.form-actions",
      null,
      button("Save", { action: "settings-save", variant: "primary", busy: st.saving, busyLabel: "Saving…", disabled: !dirty, attrs: { type: "submit" } }),
      button("Reset to defaults", { action: "settings-reset", variant: "ghost", disabled: st.saving || atDefaults }),
      h(
        "div.form-status",
        null,
        relaunchError ?? result,
        !result && dirty ? h("span.muted.small", null, "Unsaved changes") : null,
        !dirty && relaunch ? relaunch.note : null,
      ),
      relaunch?.button ?? null,
    ),
  );
}

/** The labels of the settings the page edits, by key. */
function labelOf(key: string): string {
  const all = [...FIELDS, ...LEAK_FIELDS, START_AT_LOGIN, FD_RESTART, ...REMOTE_FIELDS, UPDATE_FEED, UPDATE_AUTOMATICALLY];
  return all.find((f) => f.key === key)?.label ?? key;
}

/**
 * The offer to relaunch ("Restart Hermes Desktop") while saved settings wait for it (Go:
 * settings.View.pending, against what the app started with), in the form's
 * bar, which stays in view: which settings, and whether the backends keep
 * running or restart with the app. null when nothing waits.
 */
export function pendingRelaunch(s: AppState): { note: HTMLElement; button: HTMLElement } | null {
  const v = s.settings.view;
  const pending = v?.pending ?? [];
  if (!v || pending.length === 0) return null;
  const backends = v.pending_restarts_backends ? "your backends restart with it" : "your backends keep running";
  const what = pending.map(labelOf).join(", ");
  return {
    note: h("div.muted.small.pending-note", null, `Waiting for a restart: ${what} — ${backends}.`),
    button: button("Restart Hermes Desktop", {
      action: "relaunch",
      variant: "primary",
      size: "sm",
      icon: "restart",
      busy: s.busy.has("relaunch"),
      busyLabel: "Restarting…",
      title: `Start Hermes Desktop again with the saved ${what}; ${backends}`,
    }),
  };
}
