// What the Settings page does: load the saved settings, follow the form as
// it is typed, ask Go about the update feed, save the edit, reset to the
// defaults. The state changes through the Store; the App draws.

import { errorMessage } from "./format";
import {
  diffSettings,
  fieldErrorsFrom,
  hasErrors,
  isBoolKey,
  normalizeDraft,
  resetToDefaults,
  savedText,
  settingsEdit,
  SETTINGS_KEYS,
  toDraft,
  validateSettings,
  type SettingsKey,
} from "./settings";
import type { AppState } from "./state";
import type { Store } from "./store";
import type { HermesAPI, SettingsView } from "./types";

/** How long typing in Update feed pauses before Go judges it: a question
 *  per pause, not per key. */
export const FEED_CHECK_MS = 300;

/** What the Settings page's actions need of the page. */
export interface SettingsHost {
  readonly store: Store;
  readonly state: AppState;
  readonly api: HermesAPI;
  update(): void;
  focusAfterRender(selector: string): void;
  /** False once the page is gone: a late answer changes nothing. */
  alive(): boolean;
  /** FEED_CHECK_MS unless a test says otherwise. */
  readonly feedCheckMs: number;
}

export class SettingsActions {
  /** The pending question to Go about the typed feed. */
  private feedTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(private readonly h: SettingsHost) {}

  destroy(): void {
    if (this.feedTimer !== null) clearTimeout(this.feedTimer);
    this.feedTimer = null;
  }

  async load(): Promise<void> {
    const { store } = this.h;
    store.editSettings({ load: "loading" });
    this.h.update();
    try {
      this.show(await this.h.api.GetSettings());
      store.editSettings({ load: "ready" });
    } catch (e) {
      store.editSettings({ load: "error", loadError: errorMessage(e) });
    }
    this.h.update();
  }

  /**
   * Reads the saved settings again when the Settings page is opened again
   * with nothing unsaved, so it shows what the Backends page changed since
   * (the backend list decides whether Backend command is used). Unsaved
   * edits are kept as they are.
   */
  async refresh(): Promise<void> {
    const st = this.h.state.settings;
    if (st.load !== "ready" || st.saving || this.dirty()) return;
    try {
      const v = await this.h.api.GetSettings();
      if (this.h.state.settings.saving || this.dirty()) return; // typed into meanwhile
      this.show(v);
      this.h.update();
    } catch {
      // The loaded copy stays; Save sends only the edit either way.
    }
  }

  /** "Restore defaults": the form shows them; Save applies them. */
  reset(): void {
    const v = this.h.state.settings.view;
    if (!v) return;
    this.h.store.editSettings({
      draft: resetToDefaults(v.defaults, v.settings),
      errors: {},
      result: { ok: true, text: "Defaults restored in the form — Save to apply" },
    });
    this.h.update();
  }

  async save(): Promise<void> {
    const { store } = this.h;
    const st = this.h.state.settings;
    if (!st.draft || !st.view || st.saving) return;
    const draft = normalizeDraft(st.draft);
    const errors = validateSettings(draft);
    store.editSettings({ errors });
    if (hasErrors(errors)) {
      store.editSettings({ result: { ok: false, text: fixText(Object.keys(errors).length) } });
      this.focusFirstError();
      this.h.update();
      return;
    }
    store.editSettings({ saving: true, result: null });
    this.h.update();
    const changed = diffSettings(draft, toDraft(st.view.settings), toDraft(st.view.defaults));
    if (changed.includes("update_feed") && (await this.checkFeed(draft.update_feed))) {
      store.editSettings({ saving: false, result: { ok: false, text: fixText(1) } });
      this.focusFirstError();
      this.h.update();
      return;
    }
    const u = this.h.state.status?.instance.update;
    const heldBy = { update_feed: u?.feed_from, update_automatically: u?.automatic_from };
    try {
      // Only the edit: Go lays it over what is saved now, so a backend
      // added or removed since this page loaded stays as it is.
      this.show(await this.h.api.SaveSettings(settingsEdit(draft, changed)));
      store.editSettings({ result: { ok: true, text: savedText(changed, heldBy, !!u?.build_off) } });
    } catch (e) {
      // Go names the field of each error: it goes under that field, once.
      const { errors, rest } = fieldErrorsFrom(errorMessage(e));
      const text = rest.length ? rest.join(" ") : fixText(Object.keys(errors).length);
      store.editSettings({ errors, result: { ok: false, text } });
      this.focusFirstError();
    } finally {
      store.editSettings({ saving: false });
      this.h.update();
    }
  }

  /** A Settings field changed: the draft follows; false when nothing did. */
  input(el: HTMLInputElement | HTMLSelectElement, type: string): boolean {
    const { store } = this.h;
    const st = this.h.state.settings;
    if (!st.draft) return false;
    const key = el.dataset.field as SettingsKey;
    if (isBoolKey(key)) {
      if (type !== "change") return false;
      store.editSettings({ draft: { ...st.draft, [key]: (el as HTMLInputElement).checked } });
    } else {
      if (type !== "input") return false;
      const draft = { ...st.draft, [key]: el.value };
      store.editSettings({ draft });
      // Re-check a field that was flagged, so the error clears as it is fixed.
      if (st.errors[key]) {
        const e = validateSettings(draft)[key];
        const rest = { ...st.errors };
        delete rest[key];
        store.editSettings({ errors: e ? { ...st.errors, [key]: e } : rest });
      }
    }
    store.editSettings({ result: null });
    if (key === "update_feed") this.scheduleFeedCheck();
    return true;
  }

  private dirty(): boolean {
    const st = this.h.state.settings;
    return !!st.draft && !!st.view && diffSettings(st.draft, toDraft(st.view.settings), toDraft(st.view.defaults)).length > 0;
  }

  private show(v: SettingsView): void {
    this.h.store.editSettings({ view: v, draft: toDraft(v.settings), errors: {} });
  }

  /** Brings the first field with an error into view and focus: "Fix the
   *  highlighted fields" with none on screen helped nobody (issue 31, item 7). */
  private focusFirstError(): void {
    const first = SETTINGS_KEYS.find((k) => this.h.state.settings.errors[k]);
    if (first) this.h.focusAfterRender(`#set-${first}`);
  }

  /** Asks Go about the typed feed once typing pauses. */
  private scheduleFeedCheck(): void {
    if (this.feedTimer !== null) clearTimeout(this.feedTimer);
    this.feedTimer = setTimeout(() => {
      this.feedTimer = null;
      const draft = this.h.state.settings.draft;
      if (draft && this.h.alive()) void this.checkFeed(draft.update_feed).then(() => this.h.update());
    }, this.h.feedCheckMs);
  }

  /**
   * Puts Go's judgement of a feed (App.FeedURLError, its one rule) under
   * the field, if the field still holds it; true when Go refuses it.
   */
  private async checkFeed(typed: string): Promise<boolean> {
    let refusal = "";
    try {
      refusal = await this.h.api.FeedURLError(typed.trim());
    } catch {
      return false; // not asked: Save's answer says the same
    }
    const st = this.h.state.settings;
    if (!st.draft || st.draft.update_feed.trim() !== typed.trim()) return false;
    const rest = { ...st.errors };
    delete rest.update_feed;
    const e = fieldErrorsFrom(refusal).errors.update_feed;
    this.h.store.editSettings({ errors: e ? { ...rest, update_feed: e } : rest });
    return !!e;
  }
}

function fixText(fields: number): string {
  return fields === 1 ? "Fix the highlighted field, then save again." : "Fix the highlighted fields, then save again.";
}
