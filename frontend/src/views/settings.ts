import { h } from "../dom";
import { customizedKeys, diffSettings, type TextKey } from "../settings";
import type { AppState } from "../state";
import type { Settings } from "../types";
import { banner, button, emptyState, icon, pageHeader } from "../ui";

interface FieldSpec {
  key: TextKey;
  label: string;
  help: string;
  mono: boolean;
}

export const FIELDS: FieldSpec[] = [
  {
    key: "backend_command",
    label: "Backend command",
    help: "The command that starts a backend, quoted like a shell command line. Leave empty for the built-in default.",
    mono: true,
  },
  {
    key: "ready_regex",
    label: "Ready pattern",
    help: "A regular expression matched against the backend's output; its first group is the port it listens on.",
    mono: true,
  },
  {
    key: "health_path",
    label: "Health check path",
    help: "Requested once the port is known; the backend counts as ready when it answers.",
    mono: true,
  },
  {
    key: "grace",
    label: "Stop grace period",
    help: "How long a backend may take to exit after being asked to stop, before it is killed. For example 5s.",
    mono: false,
  },
  {
    key: "min_orphan_age",
    label: "Minimum orphan age",
    help: "Leftover processes younger than this are never reaped at startup. For example 3m.",
    mono: false,
  },
];

function field(f: FieldSpec, draft: Settings, defaults: Settings, error: string | undefined, custom: boolean): HTMLElement {
  const id = `set-${f.key}`;
  const helpId = `${id}-help`;
  const errId = `${id}-err`;
  return h(
    "div.field",
    { class: error ? "has-error" : null },
    h("label.field-label", { for: id }, f.label, custom ? h("span.chip.chip-accent", { title: "Differs from the default" }, "custom") : null),
    h("input", {
      id,
      type: "text",
      class: f.mono ? "input mono" : "input",
      value: draft[f.key],
      placeholder: defaults[f.key] || "Built-in default",
      "data-input": "setting",
      "data-field": f.key,
      spellcheck: "false",
      autocomplete: "off",
      "aria-invalid": error ? "true" : null,
      "aria-describedby": error ? `${errId} ${helpId}` : helpId,
    }),
    error ? h("div.field-error", { id: errId }, icon("warning", 13), h("span", null, error)) : null,
    h("p.field-help", { id: helpId }, f.help),
  );
}

export function settingsView(s: AppState): HTMLElement {
  const st = s.settings;
  const notices = (s.status?.notices ?? []).filter((n) => n);
  const head = pageHeader("Settings", st.view?.path ? `Saved in ${st.view.path}` : null);

  if (st.load === "idle" || st.load === "loading" || (!st.view && st.load !== "error")) {
    return h("section.page", null, head, h("div.loading-inline", null, h("span.spinner"), "Loading settings…"));
  }
  if (st.load === "error" || !st.view || !st.draft) {
    return h(
      "section.page",
      null,
      head,
      emptyState("warning", "Settings could not be loaded", st.loadError || "Unknown error", [
        button("Retry", { action: "settings-reload", icon: "restart", variant: "primary" }),
      ]),
    );
  }

  const draft = st.draft;
  const defaults = st.view.defaults;
  const dirty = diffSettings(draft, st.view.settings).length > 0;
  const custom = new Set(customizedKeys(draft, defaults));
  const atDefaults = custom.size === 0;

  // The same notice may come from both places; show it once.
  const warn = [...new Set([st.view.notice ?? "", ...notices])]
    .filter((n) => n)
    .map((n) => banner("warn", n, { key: `notice:${n}` }));

  const result = st.result
    ? h(st.result.ok ? "div.save-result.ok" : "div.save-result.bad", { role: st.result.ok ? "status" : "alert" }, icon(st.result.ok ? "check" : "warning", 15), h("span", null, st.result.text))
    : null;

  return h(
    "section.page",
    null,
    head,
    ...warn,
    h(
      "form.card.settings-form",
      { "data-form": "settings", novalidate: true },
      ...FIELDS.map((f) => field(f, draft, defaults, st.errors[f.key], custom.has(f.key))),
      h(
        "div.field.field-check",
        null,
        h(
          "label.check",
          { for: "set-start_at_login" },
          h("input", {
            id: "set-start_at_login",
            type: "checkbox",
            checked: draft.start_at_login,
            "data-input": "setting",
            "data-field": "start_at_login",
            "aria-describedby": "set-start_at_login-help",
          }),
          h("span.check-box", { "aria-hidden": "true" }, icon("check", 12)),
          h("span.field-label", null, "Start at login", custom.has("start_at_login") ? h("span.chip.chip-accent", null, "custom") : null),
        ),
        h("p.field-help", { id: "set-start_at_login-help" }, `Open Hermes Desktop when you log in. Default: ${defaults.start_at_login ? "on" : "off"}.`),
      ),
      h(
        "div.form-actions",
        null,
        button("Save", { action: "settings-save", variant: "primary", busy: st.saving, busyLabel: "Saving…", disabled: !dirty, attrs: { type: "submit" } }),
        button("Reset to defaults", { action: "settings-reset", variant: "ghost", disabled: st.saving || atDefaults }),
        h("div.form-status", null, result, !result && dirty ? h("span.muted.small", null, "Unsaved changes") : null),
      ),
    ),
  );
}
