// What the Backends page's buttons and forms do: start, stop, open Hermes,
// copy connection details, add and remove backends. The App owns the state
// and the rendering; it hands each of these actions here.

import { emptyAddForm, hasAddErrors, normalizeAddDraft, refusalByField, toBackendSetting, validateAdd, type AddField, type AddForm } from "./addbackend";
import { errorMessage } from "./format";
import type { AppState } from "./state";
import type { HermesAPI } from "./types";

/** The Add form's fields in the order a person meets them. */
const ADD_FIELD_ORDER: readonly AddField[] = ["name", "host", "profile", "command", "ready_regex", "health_path", "grace"];

/** What the actions need from the App. */
export interface ActionHost {
  readonly state: AppState;
  readonly api: HermesAPI;
  /** Runs fn with a busy key, showing its error inline under errKey. */
  run(busyKey: string, errKey: string, fn: () => Promise<unknown>): Promise<boolean>;
  update(): void;
  /** Reads the status once more (after a change the next event would bring). */
  refresh(): Promise<void>;
  /** Shows a short confirmation under key for a few seconds. */
  flash(key: string, text: string): void;
  /** Focuses what the selector names after the next render. */
  focusAfterRender(selector: string): void;
  focusNow(selector: string): void;
}

/** The data-action values BackendActions handles. */
const ACTIONS = new Set([
  "restart",
  "start",
  "stop",
  "open-hermes",
  "copy-connection",
  "add-open",
  "add-cancel",
  "remove-ask",
  "remove-cancel",
  "remove-confirm",
]);

export class BackendActions {
  constructor(private readonly host: ActionHost) {}

  /** Runs a clicked action; false when it is not one of these. */
  click(action: string, target: HTMLElement): boolean {
    if (!ACTIONS.has(action)) return false;
    const h = this.host;
    const name = target.dataset.name ?? "";
    switch (action) {
      case "restart":
        void h.run(`restart:${name}`, `backend:${name}`, () => h.api.Restart(name));
        break;
      case "start":
        void h.run(`start:${name}`, `backend:${name}`, () => h.api.StartBackend(name));
        break;
      case "stop":
        void h.run(`stop:${name}`, `backend:${name}`, () => h.api.StopBackend(name));
        break;
      case "open-hermes": {
        // "Opening…" while Go waits to hear from the opener, then what came of it.
        const key = target.dataset.errKey ?? `backend:${name}`;
        void h.run(`open-hermes:${name}`, key, () => h.api.OpenHermes(name)).then((ok) => {
          if (!ok) return;
          // An open that worked answers an earlier failed one wherever it
          // was shown: the header's red error no longer stands beside it.
          for (const k of [...h.state.errors.keys()]) {
            if (k === "topbar" || k.startsWith("backend:")) {
              if (/could not open|xdg-open|no browser/i.test(h.state.errors.get(k) ?? "")) h.state.errors.delete(k);
            }
          }
          h.flash(key, "Opened in your browser");
        });
        break;
      }
      case "copy-connection":
        this.copyConnection(name);
        break;
      case "add-open":
        if (h.state.addForm.open) h.focusNow("#add-name");
        else this.openAddForm();
        break;
      case "add-cancel":
        this.closeAddForm();
        break;
      case "remove-ask":
        this.askRemove(name);
        break;
      case "remove-cancel":
        this.cancelRemove();
        break;
      case "remove-confirm":
        void this.confirmRemove(name);
        break;
    }
    return true;
  }

  /** Copies a backend's connection details. The text holds the session
   *  token: it goes from Go to the clipboard and nowhere else (not the
   *  state, not an error, not a log). */
  private copyConnection(name: string): void {
    const h = this.host;
    void h.run(`copy:${name}`, `backend:${name}`, async () => {
      const details = await h.api.ConnectionDetails(name);
      let copied = false;
      try {
        copied = await h.api.ClipboardSetText(details);
      } catch {
        // The runtime's error could echo what it was given: say it in our words.
      }
      if (!copied) throw new Error("The clipboard did not accept the details; nothing was copied.");
      const withToken = details.includes("X-Hermes-Session-Token");
      h.state.notes.set(`backend:${name}`, withToken ? "Copied URL and token" : "Copied connection details");
    });
  }

  private openAddForm(): void {
    const f = this.host.state.addForm;
    f.open = true;
    this.host.focusAfterRender("#add-name");
    this.host.update();
    void this.readShared(f);
  }

  /** Reads what a custom backend's empty readiness fields stand for: the
   *  shared settings saved now, or their defaults (Go: App.AddBackend). */
  private async readShared(f: AddForm): Promise<void> {
    try {
      const v = await this.host.api.GetSettings();
      const pick = (k: "ready_regex" | "health_path" | "grace") => v.settings[k] || v.defaults[k] || "";
      f.shared = { ready_regex: pick("ready_regex"), health_path: pick("health_path"), grace: pick("grace") };
    } catch {
      return; // the placeholders stay generic; Go applies the shared values either way
    }
    if (this.host.state.addForm === f && f.open) this.host.update();
  }

  private closeAddForm(): void {
    const st = this.host.state;
    if (st.addForm.saving) return;
    st.addForm = emptyAddForm();
    this.host.focusAfterRender('[data-action="add-open"]');
    this.host.update();
  }

  /** Checks the form as Go would, then asks Go to add the backend. */
  async saveAddBackend(): Promise<void> {
    const h = this.host;
    const f = h.state.addForm;
    if (!f.open || f.saving) return;
    const draft = normalizeAddDraft(f.draft);
    f.errors = validateAdd(draft, this.backendNames());
    f.refused = {};
    f.error = "";
    if (hasAddErrors(f.errors)) {
      this.focusFirstError(f);
      h.update();
      return;
    }
    f.saving = true;
    h.update();
    try {
      await h.api.AddBackend(toBackendSetting(draft));
      h.state.addForm = emptyAddForm();
      h.focusAfterRender('[data-action="add-open"]');
      void h.refresh(); // the new card at once, not at the next event
    } catch (e) {
      // On the field Go names, as the form's own checks show theirs.
      const { errors, rest } = refusalByField(errorMessage(e));
      f.errors = { ...errors };
      f.refused = errors;
      f.error = rest;
      if (hasAddErrors(errors)) this.focusFirstError(f);
    } finally {
      f.saving = false;
      h.update();
    }
  }

  private focusFirstError(f: AddForm): void {
    const first = ADD_FIELD_ORDER.find((k) => f.errors[k]);
    if (first) this.host.focusAfterRender(`#add-${first}`);
  }

  /** A field of the Add backend form changed: the draft follows; false when
   *  nothing did. The App re-renders the form (only it: see updateForm). */
  addInput(el: HTMLInputElement | HTMLSelectElement, type: string): boolean {
    const f = this.host.state.addForm;
    const field = el.dataset.field as AddField;
    if (field === "kind") {
      if (type !== "change" || !(el as HTMLInputElement).checked) return false;
      f.draft = { ...f.draft, kind: el.value as typeof f.draft.kind };
    } else {
      if (type !== "input") return false;
      f.draft = { ...f.draft, [field]: el.value };
    }
    // Re-check the flagged fields, so an error clears as it is fixed; one
    // only Go found stays until its field is edited.
    if (field !== "kind") delete f.refused[field];
    if (hasAddErrors(f.errors)) f.errors = { ...f.refused, ...validateAdd(normalizeAddDraft(f.draft), this.backendNames()) };
    f.error = "";
    return true;
  }

  /** Escape closes the Add backend form or a Remove question it is in. */
  escape(el: Element | null): boolean {
    if (el?.closest?.(".add-form")) {
      this.closeAddForm();
      return true;
    }
    if (el?.closest?.(".remove-confirm")) {
      this.cancelRemove();
      return true;
    }
    return false;
  }

  private askRemove(name: string): void {
    this.host.state.removeConfirm = name;
    this.host.focusAfterRender('.remove-confirm [data-action="remove-cancel"]');
    this.host.update();
  }

  private cancelRemove(): void {
    const st = this.host.state;
    const name = st.removeConfirm;
    if (name === null || st.busy.has(`remove:${name}`)) return;
    st.removeConfirm = null;
    // Names are letters, digits, '.', '_' and '-' (Go checks): safe in a selector.
    this.host.focusAfterRender(`[data-action="remove-ask"][data-name="${name}"]`);
    this.host.update();
  }

  private async confirmRemove(name: string): Promise<void> {
    const h = this.host;
    if (h.state.removeConfirm !== name) return;
    const ok = await h.run(`remove:${name}`, `backend:${name}`, () => h.api.RemoveBackend(name));
    if (!ok) return; // the question stays, with Go's answer under it
    if (h.state.removeConfirm === name) h.state.removeConfirm = null;
    h.focusAfterRender('[data-action="add-open"]');
    void h.refresh();
  }

  private backendNames(): string[] {
    return (this.host.state.status?.backends ?? []).map((b) => b.name);
  }
}
