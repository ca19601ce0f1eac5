// The Add backend form, an inline card on the Backends page.

import type { AddField, AddForm, ReadinessField } from "../addbackend";
import { h } from "../dom";
import { KIND_ORDER, kindHelp, kindLabel } from "../reasons";
import { BACKEND_FIELD_LABELS } from "../settings";
import { button, icon, inlineError } from "../ui";

interface TextSpec {
  field: Exclude<AddField, "kind">;
  label: string;
  help: string;
  placeholder: string;
  optional?: boolean;
  mono?: boolean;
  /** A name, not a command line: a narrower box. */
  short?: boolean;
}

const NAME: TextSpec = {
  field: "name",
  label: "Name",
  help: "Letters, digits, '.', '_' or '-', up to 64. It names the backend's card, logs and records.",
  placeholder: "e.g. research",
  short: true,
};

const PROFILE: TextSpec = {
  field: "profile",
  label: "Profile",
  help: "The Hermes profile to run (passed as --profile). Leave empty for Hermes' default profile.",
  placeholder: "default",
  optional: true,
  short: true,
};

const COMMAND: TextSpec = {
  field: "command",
  label: "Command",
  help: "Quoted as in a terminal (on Windows: double quotes around paths with spaces). The server must listen on 127.0.0.1 and print its port.",
  placeholder: "e.g. python3 -m myserver --port 0",
  mono: true,
};

// Empty is this computer; anything ssh(1) takes as a destination runs the
// backend there, through the user's own ssh and its config.
const HOST: TextSpec = {
  field: "host",
  label: BACKEND_FIELD_LABELS.host,
  help: "The computer it runs on, reached with your own ssh: user@server, ssh://user@server:2222 or a Host alias from your ssh config. Your keys, agent and known hosts work as in your terminal. Empty: this computer.",
  placeholder: "this computer — or user@server, an ssh alias",
  optional: true,
  mono: true,
};

/** The Host field, its help saying what runs there for this kind. */
function hostFor(kind: string): TextSpec {
  const what = kind === "custom" ? "It runs your command there." : "It runs Hermes there if it is installed, else the built-in backend.";
  return { ...HOST, help: `${HOST.help.replace(/ Empty: this computer\.$/, "")} ${what} Empty: this computer.` };
}

// A custom server's own readiness. Empty takes the shared value in
// Settings, made for Hermes, which a server that is not Hermes rarely
// matches: the help says what to fill in for a typical one.
const READY_REGEX: TextSpec = {
  field: "ready_regex",
  label: "Ready pattern",
  help: "A regular expression matched on each line the server prints; its first group ( ) is the port. For python3 -m http.server: port (\\d+). Empty: the pattern in Settings (Hermes' ready line).",
  placeholder: "e.g. port (\\d+)",
  optional: true,
  mono: true,
};

const HEALTH_PATH: TextSpec = {
  field: "health_path",
  label: "Health check path",
  help: "Requested once the port is known; the backend is ready when it answers with success. Most servers that are not Hermes answer / (Hermes' path gets 404). Empty: the path in Settings.",
  placeholder: "e.g. /",
  optional: true,
  mono: true,
  short: true,
};

const GRACE: TextSpec = {
  field: "grace",
  label: "Stop grace period",
  help: "How long it may take to exit after being asked to stop, before it is killed, like 5s. Empty: the grace period in Settings.",
  placeholder: "",
  optional: true,
  short: true,
};

/** The placeholder says what empty stands for, once it is known. */
function withShared(f: TextSpec, form: AddForm): TextSpec {
  const field = f.field as ReadinessField;
  const v = form.shared?.[field];
  return v ? { ...f, placeholder: `Settings: ${v}` } : { ...f, placeholder: f.placeholder || "as in Settings" };
}

function textField(f: TextSpec, form: AddForm): HTMLElement {
  const id = `add-${f.field}`;
  const error = form.errors[f.field];
  const errId = `${id}-err`;
  const helpId = `${id}-help`;
  return h(
    "div.field",
    { class: error ? "has-error" : null, "data-key": id },
    h("label.field-label", { for: id }, f.label, f.optional ? h("span.field-optional", null, "optional") : null),
    h("input", {
      id,
      type: "text",
      class: ["input", f.mono ? "mono" : "", f.short ? "input-name" : ""].filter((c) => c).join(" "),
      value: form.draft[f.field],
      placeholder: f.placeholder,
      "data-input": "add",
      "data-field": f.field,
      spellcheck: "false",
      autocomplete: "off",
      required: f.optional ? null : true,
      "aria-invalid": error ? "true" : null,
      "aria-describedby": error ? `${errId} ${helpId}` : helpId,
    }),
    error ? h("div.field-error", { id: errId }, icon("warning", 13), h("span", null, error)) : null,
    h("p.field-help", { id: helpId }, f.help),
  );
}

function kindField(form: AddForm): HTMLElement {
  return h(
    "fieldset.field.kind-field",
    { "data-key": "add-kind" },
    h("legend.field-label", null, "Kind"),
    h(
      "div.kind-options",
      null,
      ...KIND_ORDER.map((k) =>
        h(
          "label.kind-option",
          { class: form.draft.kind === k ? "is-selected" : null, for: `add-kind-${k}` },
          h("input", {
            id: `add-kind-${k}`,
            type: "radio",
            name: "add-kind",
            value: k,
            checked: form.draft.kind === k,
            "data-input": "add",
            "data-field": "kind",
            "aria-describedby": `add-kind-${k}-help`,
          }),
          h("span.kind-text", null, h("span.kind-title", null, kindLabel(k)), h("span.kind-help", { id: `add-kind-${k}-help` }, kindHelp(k))),
        ),
      ),
    ),
  );
}

export function addBackendForm(form: AddForm): HTMLElement {
  const custom = form.draft.kind === "custom";
  return h(
    "form.card.add-form",
    { id: "add-backend", "data-form": "add-backend", "data-key": "add-backend", "aria-labelledby": "add-title", novalidate: true },
    h("header.card-head", null, h("div.card-title", null, h("h2", { id: "add-title" }, "Add a backend"))),
    h(
      "div.add-fields",
      null,
      textField(NAME, form),
      kindField(form),
      textField(hostFor(form.draft.kind), form),
      ...(custom ? [textField(COMMAND, form), ...[READY_REGEX, HEALTH_PATH, GRACE].map((f) => textField(withShared(f, form), form))] : [textField(PROFILE, form)]),
    ),
    inlineError(form.error || undefined),
    h(
      "div.add-actions",
      null,
      button("Add and start", { action: "add-save", variant: "primary", icon: "plus", busy: form.saving, busyLabel: "Adding…", attrs: { type: "submit" } }),
      button("Cancel", { action: "add-cancel", variant: "ghost", disabled: form.saving }),
    ),
  );
}
