// What the Backends page's buttons and forms do: start, stop, open Hermes,
// copy connection details, add and remove backends: a table of actions
// (src/actions.ts) and the form's input and submit. The state changes
// through the Store; the App draws.

import type { Action, ActionContext } from "./actions";
import { hasAddErrors, normalizeAddDraft, refusalByField, toBackendSetting, validateAdd, type AddField, type AddForm } from "./addbackend";
import { errorMessage } from "./format";

/** The Add form's fields in the order a person meets them. */
const ADD_FIELD_ORDER: readonly AddField[] = ["name", "host", "profile", "command", "ready_regex", "health_path", "grace"];

const nameOf = (target: HTMLElement) => target.dataset.name ?? "";

/** The Backends page's actions, by data-action. */
export const BACKEND_ACTIONS: Readonly<Record<string, Action>> = {
  restart: (c, t) => void c.run(`restart:${nameOf(t)}`, `backend:${nameOf(t)}`, () => c.api.Restart(nameOf(t))),
  start: (c, t) => void c.run(`start:${nameOf(t)}`, `backend:${nameOf(t)}`, () => c.api.StartBackend(nameOf(t))),
  stop: (c, t) => void c.run(`stop:${nameOf(t)}`, `backend:${nameOf(t)}`, () => c.api.StopBackend(nameOf(t))),
  "open-hermes": (c, t) => openHermes(c, nameOf(t), t.dataset.errKey ?? `backend:${nameOf(t)}`),
  "copy-connection": (c, t) => copyConnection(c, nameOf(t)),
  "add-open": (c) => {
    if (c.state.addForm.open) c.focusNow("#add-name");
    else openAddForm(c);
  },
  "add-cancel": (c) => closeAddForm(c),
  "remove-ask": (c, t) => askRemove(c, nameOf(t)),
  "remove-cancel": (c) => cancelRemove(c),
  "remove-confirm": (c, t) => void confirmRemove(c, nameOf(t)),
};

/** "Opening…" while Go waits to hear from the opener, then what came of it. */
function openHermes(c: ActionContext, name: string, key: string): void {
  void c.run(`open-hermes:${name}`, key, () => c.api.OpenHermes(name)).then((ok) => {
    if (!ok) return;
    // An open that worked answers an earlier failed one wherever it
    // was shown: the header's red error no longer stands beside it.
    for (const [k, text] of [...c.state.errors]) {
      if ((k === "topbar" || k.startsWith("backend:")) && /could not open|xdg-open|no browser/i.test(text)) c.store.clearError(k);
    }
    c.flash(key, "Opened in your browser");
  });
}

/** Copies a backend's connection details. The text holds the session
 *  token: it goes from Go to the clipboard and nowhere else (not the
 *  state, not an error, not a log). */
function copyConnection(c: ActionContext, name: string): void {
  void c.run(`copy:${name}`, `backend:${name}`, async () => {
    const details = await c.api.ConnectionDetails(name);
    let copied = false;
    try {
      copied = await c.api.ClipboardSetText(details);
    } catch {
      // The runtime's error could echo what it was given: say it in our words.
    }
    if (!copied) throw new Error("The clipboard did not accept the details; nothing was copied.");
    const withToken = details.includes("X-Hermes-Session-Token");
    c.store.note(`backend:${name}`, withToken ? "Copied URL and token" : "Copied connection details");
  });
}

function openAddForm(c: ActionContext): void {
  c.store.editAddForm({ open: true });
  c.focusAfterRender("#add-name");
  c.update();
  void readShared(c, c.state.addForm);
}

/** Reads what a custom backend's empty readiness fields stand for: the
 *  shared settings saved now, or their defaults (Go: App.AddBackend). */
async function readShared(c: ActionContext, f: Readonly<AddForm>): Promise<void> {
  try {
    const v = await c.api.GetSettings();
    const pick = (k: "ready_regex" | "health_path" | "grace") => v.settings[k] || v.defaults[k] || "";
    if (c.state.addForm !== f) return; // closed meanwhile
    c.store.editAddForm({ shared: { ready_regex: pick("ready_regex"), health_path: pick("health_path"), grace: pick("grace") } });
  } catch {
    return; // the placeholders stay generic; Go applies the shared values either way
  }
  if (c.state.addForm === f && f.open) c.update();
}

function closeAddForm(c: ActionContext): void {
  if (c.state.addForm.saving) return;
  c.store.resetAddForm();
  c.focusAfterRender('[data-action="add-open"]');
  c.update();
}

/** Checks the form as Go would, then asks Go to add the backend. */
export async function saveAddBackend(c: ActionContext): Promise<void> {
  const f = c.state.addForm;
  if (!f.open || f.saving) return;
  const draft = normalizeAddDraft(f.draft);
  c.store.editAddForm({ errors: validateAdd(draft, backendNames(c)), refused: {}, error: "" });
  if (hasAddErrors(f.errors)) {
    focusFirstError(c);
    c.update();
    return;
  }
  c.store.editAddForm({ saving: true });
  c.update();
  try {
    await c.api.AddBackend(toBackendSetting(draft));
    c.store.resetAddForm();
    c.focusAfterRender('[data-action="add-open"]');
    void c.refresh(); // the new card at once, not at the next event
  } catch (e) {
    // On the field Go names, as the form's own checks show theirs.
    const { errors, rest } = refusalByField(errorMessage(e));
    c.store.editAddForm({ errors: { ...errors }, refused: errors, error: rest });
    if (hasAddErrors(errors)) focusFirstError(c);
  } finally {
    c.store.editAddForm({ saving: false }); // (a form reset meanwhile is not saving: no change)
    c.update();
  }
}

function focusFirstError(c: ActionContext): void {
  const first = ADD_FIELD_ORDER.find((k) => c.state.addForm.errors[k]);
  if (first) c.focusAfterRender(`#add-${first}`);
}

/** A field of the Add backend form changed: the draft follows; false when
 *  nothing did. The App re-renders the form (only it: see Renderer.updateForm). */
export function addInput(c: ActionContext, el: HTMLInputElement | HTMLSelectElement, type: string): boolean {
  const f = c.state.addForm;
  const field = el.dataset.field as AddField;
  let draft = f.draft;
  if (field === "kind") {
    if (type !== "change" || !(el as HTMLInputElement).checked) return false;
    draft = { ...draft, kind: el.value as typeof draft.kind };
  } else {
    if (type !== "input") return false;
    draft = { ...draft, [field]: el.value };
  }
  // Re-check the flagged fields, so an error clears as it is fixed; one
  // only Go found stays until its field is edited.
  const refused = { ...f.refused };
  if (field !== "kind") delete refused[field];
  const errors = hasAddErrors(f.errors) ? { ...refused, ...validateAdd(normalizeAddDraft(draft), backendNames(c)) } : f.errors;
  c.store.editAddForm({ draft, refused, errors, error: "" });
  return true;
}

/** Escape closes the Add backend form or a Remove question it is in. */
export function escape(c: ActionContext, el: Element | null): boolean {
  if (el?.closest?.(".add-form")) {
    closeAddForm(c);
    return true;
  }
  if (el?.closest?.(".remove-confirm")) {
    cancelRemove(c);
    return true;
  }
  return false;
}

function askRemove(c: ActionContext, name: string): void {
  c.store.askRemove(name);
  c.focusAfterRender('.remove-confirm [data-action="remove-cancel"]');
  c.update();
}

function cancelRemove(c: ActionContext): void {
  const name = c.state.removeConfirm;
  if (name === null || c.state.busy.has(`remove:${name}`)) return;
  c.store.askRemove(null);
  // Names are letters, digits, '.', '_' and '-' (Go checks): safe in a selector.
  c.focusAfterRender(`[data-action="remove-ask"][data-name="${name}"]`);
  c.update();
}

async function confirmRemove(c: ActionContext, name: string): Promise<void> {
  if (c.state.removeConfirm !== name) return;
  const ok = await c.run(`remove:${name}`, `backend:${name}`, () => c.api.RemoveBackend(name));
  if (!ok) return; // the question stays, with Go's answer under it
  if (c.state.removeConfirm === name) c.store.askRemove(null);
  c.focusAfterRender('[data-action="add-open"]');
  void c.refresh();
}

function backendNames(c: ActionContext): string[] {
  return (c.state.status?.backends ?? []).map((b) => b.name);
}
