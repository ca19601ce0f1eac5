// The Add backend form, an inline card on the Backends page.

import type { AddField, AddForm } from "../addbackend";
import { h } from "../dom";
import { KIND_ORDER, kindHelp, kindLabel } from "../reasons";
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
      custom ? textField(COMMAND, form) : textField(PROFILE, form),
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
