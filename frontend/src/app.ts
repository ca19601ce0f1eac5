// The controller: owns the state, talks to the HermesAPI it is given, and
// patches the DOM from the pure views.

import { BackendActions } from "./backendactions";
import { syncClocks } from "./clock";
import { h, morph } from "./dom";
import { errorMessage } from "./format";
import { reapFlow, wouldReap, type ReapEvent } from "./reap";
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
import { currentReport, initialState, reportKey, type AppState, type Tab } from "./state";
import type { HermesAPI, LogLine, SettingsView, Status, Unsubscribe } from "./types";
import { addFormView, backendsView } from "./views/backends";
import { logChrome, logCountText, logsView, syncLogRows, visibleLogLines } from "./views/logs";
import { reapView } from "./views/reap";
import { settingsForm, settingsView } from "./views/settings";
import { errorView, globalBanners, header, loadingView, sidebar } from "./views/shell";
import { treeView } from "./views/tree";
import { UpdateActions } from "./update";
import { updateBanner } from "./views/update";

export const INITIAL_LOG_LINES = 500;

/** How often the Process tree page reads the status while it is shown: Go
 *  sends a tree only when it changes, so without this "checked" would stand
 *  still while the sampler goes on (leakguard's default interval). */
export const TREE_RECHECK_MS = 5000;

/** How long typing in Update feed pauses before Go judges it: a question
 *  per pause, not per key. */
export const FEED_CHECK_MS = 300;

/** How long a confirmation such as "Opened in your browser" stays. */
export const FLASH_MS = 4000;

/**
 * The forms a keystroke re-renders alone, by their data-form: each view
 * returns the whole form (null when it is not shown), which holds all that a
 * field's input can change (the field, its error, the Save state). A field
 * added to one of these forms needs nothing here.
 */
const FORM_VIEWS: Record<string, (s: AppState) => HTMLElement | null> = {
  settings: settingsForm,
  "add-backend": addFormView,
};

export interface AppOptions {
  now?: () => number;
  /** Schedules a render; defaults to requestAnimationFrame. Tests pass (fn) => fn(). */
  schedule?: (fn: () => void) => void;
  /** Arms the one timer that updates running times when their text would
   *  change (see src/clock.ts); default on, off in most tests. */
  timers?: boolean;
  /** Whose visibilitychange hides and shows the page; default document. */
  doc?: Document;
  /** Called with the new tab, e.g. to update location.hash. */
  onTab?: (tab: Tab) => void;
  initialTab?: Tab;
  /** How long typing in Update feed pauses before Go is asked about it
   *  (FEED_CHECK_MS); tests pass 0. */
  feedCheckMs?: number;
  /** Marks the page as showing simulated data. */
  preview?: boolean;
  /** The status the page arrived with (Go: app_boot.go), drawn at once;
   *  Status() is asked too, for what changed since. */
  initialStatus?: Status;
}

export class App {
  readonly state: AppState;
  private readonly now: () => number;
  private readonly schedule: (fn: () => void) => void;
  private readonly subs: Unsubscribe[] = [];
  private readonly doc: Document;
  /** The one timer: due when a running time on the page next reads
   *  differently. Never armed while hidden. */
  private clockTimer: ReturnType<typeof setTimeout> | null = null;
  /** Reads the status again while the Process tree page is shown. */
  private treeTimer: ReturnType<typeof setInterval> | null = null;
  /** The window cannot be seen: no timer runs and Go sends no events. */
  private hidden = false;
  private destroyed = false;
  private renderQueued = false;
  private logsQueued = false;
  /** The data-form of the form a keystroke changed, to be re-rendered alone. */
  private formQueued: string | null = null;
  /** logChrome of the Logs tab as last rendered in full. */
  private logChromeDrawn = "";
  private logSig = "";
  private logContainer: HTMLElement | null = null;
  private logsRequested = new Set<string>();
  /** A selector to focus after the next render (a form opened or closed). */
  private focusAfterRender: string | null = null;
  /** The pending question to Go about the typed feed (FEED_CHECK_MS). */
  private feedTimer: ReturnType<typeof setTimeout> | null = null;
  private readonly backends: BackendActions;
  private readonly updates: UpdateActions;

  constructor(
    private readonly api: HermesAPI,
    private readonly root: HTMLElement,
    private readonly opts: AppOptions = {},
  ) {
    this.state = initialState(opts.initialTab ?? "backends");
    this.state.preview = !!opts.preview;
    this.now = opts.now ?? (() => Date.now());
    this.doc = opts.doc ?? document;
    this.schedule = opts.schedule ?? ((fn) => requestAnimationFrame(() => fn()));
    this.backends = new BackendActions({
      state: this.state,
      api,
      run: (busyKey, errKey, fn) => this.run(busyKey, errKey, fn),
      update: () => this.update(),
      refresh: () => this.refresh(),
      focusAfterRender: (selector) => {
        this.focusAfterRender = selector;
      },
      focusNow: (selector) => this.focusNow(selector),
      flash: (key, text) => this.flash(key, text),
    });
    this.updates = new UpdateActions({ state: this.state, api, run: (b, e, fn) => this.run(b, e, fn), refresh: () => this.refresh() });
    root.addEventListener("click", this.onClick);
    root.addEventListener("input", this.onInput);
    root.addEventListener("change", this.onInput);
    root.addEventListener("submit", this.onSubmit);
    root.addEventListener("keydown", this.onKeyDown);
    root.addEventListener("scroll", this.onScroll, true);
  }

  /** Subscribes to events, then loads the first status and logs. */
  async start(): Promise<void> {
    this.subs.push(
      this.api.onStatus((s) => this.applyStatus(s)),
      this.api.onLogs((lines) => this.addLogs(lines)),
      this.api.onReap((r) => {
        this.state.lastReap = r;
        this.update();
      }),
    );
    // No periodic refresh: Go's events are reliable (it sends the whole
    // status again when a subscriber lagged), a status event also ends a
    // "Lost contact" banner, and the banner has Retry.
    this.doc.addEventListener("visibilitychange", this.onVisibility);
    if (this.doc.visibilityState === "hidden") {
      this.hidden = true;
      this.reportVisible(false);
    }
    if (this.opts.initialStatus) {
      // The first frame shows the backends; the answer below brings what
      // changed in the milliseconds since the page was served.
      this.applyStatus(this.opts.initialStatus);
      this.render();
      this.armTreeRecheck();
      if (this.state.tab === "settings") void this.loadSettings();
      await this.loadStatus();
      return;
    }
    this.render();
    this.armTreeRecheck();
    await this.loadStatus();
    if (this.state.tab === "settings") await this.loadSettings();
  }

  destroy(): void {
    this.destroyed = true;
    if (this.feedTimer !== null) clearTimeout(this.feedTimer);
    for (const u of this.subs.splice(0)) u();
    this.stopClock();
    this.stopTreeRecheck();
    this.doc.removeEventListener("visibilitychange", this.onVisibility);
    this.root.removeEventListener("click", this.onClick);
    this.root.removeEventListener("input", this.onInput);
    this.root.removeEventListener("change", this.onInput);
    this.root.removeEventListener("submit", this.onSubmit);
    this.root.removeEventListener("keydown", this.onKeyDown);
    this.root.removeEventListener("scroll", this.onScroll, true);
  }

  // ---- data ---------------------------------------------------------------

  async loadStatus(): Promise<void> {
    this.state.busy.add("retry-status");
    // Only the error page has a Retry to show busy. While "Connecting…" is
    // drawn, a render here is a frame the WebKit main thread paints
    // before it hands over Status()'s answer: "Connecting…" stayed that much
    // longer (issue 23).
    if (this.state.load.kind === "error") this.update();
    try {
      const st = await this.api.Status();
      this.applyStatus(st);
    } catch (e) {
      if (this.state.load.kind !== "ready") this.state.load = { kind: "error", message: errorMessage(e) };
      else this.state.refreshError = errorMessage(e);
    } finally {
      this.state.busy.delete("retry-status");
      this.update();
    }
  }

  /**
   * Brings a page that was hidden up to date: one Status(), then, per
   * backend it already had lines of, the lines Go did not send meanwhile.
   */
  private async catchUp(): Promise<void> {
    const known = new Set(this.logsRequested);
    await this.refresh();
    for (const b of this.state.status?.backends ?? []) {
      if (known.has(b.name)) void this.loadMissedLogs(b.name);
    }
  }

  private async loadMissedLogs(name: string): Promise<void> {
    try {
      this.addLogs(await this.api.Logs(name, this.state.logs.lastSeq(name), this.state.logs.cap));
    } catch (e) {
      this.state.errors.set("logs", `Could not load the latest lines of ${name}: ${errorMessage(e)}`);
      this.update();
    }
  }

  private async refresh(): Promise<void> {
    try {
      this.applyStatus(await this.api.Status());
    } catch (e) {
      if (this.state.load.kind === "ready") {
        this.state.refreshError = errorMessage(e);
        this.update();
      }
    }
  }

  applyStatus(st: Status): void {
    this.state.status = st;
    this.state.load = { kind: "ready" };
    this.state.refreshError = null;
    const names = new Set((st.backends ?? []).map((b) => b.name));
    if (this.state.removeConfirm !== null && !names.has(this.state.removeConfirm)) this.state.removeConfirm = null;
    for (const b of st.backends ?? []) void this.loadInitialLogs(b.name);
    this.update();
  }

  /** The one Logs() call per backend; after that "logs" events carry everything. */
  private async loadInitialLogs(name: string): Promise<void> {
    if (this.logsRequested.has(name)) return;
    this.logsRequested.add(name);
    try {
      this.addLogs(await this.api.Logs(name, 0, INITIAL_LOG_LINES));
    } catch (e) {
      this.state.errors.set("logs", `Could not load earlier lines of ${name}: ${errorMessage(e)}`);
      this.update();
    }
  }

  addLogs(lines: LogLine[]): void {
    const added = this.state.logs.add(lines);
    if (added === 0) return;
    if (!this.state.logFollow) this.state.logUnseen += added;
    if (this.state.tab === "logs") this.updateLogs();
  }

  /**
   * New lines on the Logs tab: when nothing but the rows and the count would
   * change, only they are touched, not the whole page rebuilt and compared
   * (a backend that logs a line a second would otherwise cost that each
   * second). Anything else (the first line, a jump button's count, a new
   * backend to filter by) takes a full render.
   */
  private updateLogs(): void {
    if (this.renderQueued || this.logsQueued) return;
    this.logsQueued = true;
    this.schedule(() => {
      this.logsQueued = false;
      if (!this.renderQueued && !this.syncLogsOnly()) this.render();
    });
  }

  /** The rows and the count brought up to date alone; false when that is not enough. */
  private syncLogsOnly(): boolean {
    const s = this.state;
    if (s.tab !== "logs" || s.load.kind !== "ready" || !this.logContainer?.isConnected) return false;
    const visible = visibleLogLines(s);
    if (logChrome(s, visible) !== this.logChromeDrawn) return false;
    const count = this.root.querySelector<HTMLElement>(".log-count");
    if (!count) return false;
    count.textContent = logCountText(s, visible);
    this.syncLogs(visible);
    return true;
  }

  async loadSettings(): Promise<void> {
    const st = this.state.settings;
    st.load = "loading";
    this.update();
    try {
      this.setSettingsView(await this.api.GetSettings());
      st.load = "ready";
    } catch (e) {
      st.load = "error";
      st.loadError = errorMessage(e);
    }
    this.update();
  }

  /**
   * Reads the saved settings again when the Settings page is opened again
   * with nothing unsaved, so it shows what the Backends page changed since
   * (the backend list decides whether Backend command is used). Unsaved
   * edits are kept as they are.
   */
  private async refreshSettings(): Promise<void> {
    const st = this.state.settings;
    if (st.load !== "ready" || st.saving || this.settingsDirty()) return;
    try {
      const v = await this.api.GetSettings();
      if (st.saving || this.settingsDirty()) return; // typed into meanwhile
      this.setSettingsView(v);
      this.update();
    } catch {
      // The loaded copy stays; Save sends only the edit either way.
    }
  }

  private settingsDirty(): boolean {
    const st = this.state.settings;
    return !!st.draft && !!st.view && diffSettings(st.draft, toDraft(st.view.settings), toDraft(st.view.defaults)).length > 0;
  }

  private setSettingsView(v: SettingsView): void {
    const st = this.state.settings;
    st.view = v;
    st.draft = toDraft(v.settings);
    st.errors = {};
  }

  // ---- actions ------------------------------------------------------------

  /** Runs an action with a busy key, showing its error inline under errKey. */
  private async run(busyKey: string, errKey: string, fn: () => Promise<unknown>): Promise<boolean> {
    if (this.state.busy.has(busyKey)) return false;
    this.state.busy.add(busyKey);
    this.state.errors.delete(errKey);
    this.update();
    try {
      await fn();
      return true;
    } catch (e) {
      this.state.errors.set(errKey, errorMessage(e));
      return false;
    } finally {
      this.state.busy.delete(busyKey);
      this.update();
    }
  }

  /** A confirmation under key ("Opened in your browser"), gone after a few
   *  seconds or at the next click, whichever comes first. One timer, that
   *  ends. */
  private flash(key: string, text: string): void {
    this.state.notes.set(key, text);
    this.update();
    setTimeout(() => {
      if (this.destroyed || this.state.notes.get(key) !== text) return;
      this.state.notes.delete(key);
      this.update();
    }, FLASH_MS);
  }

  setTab(tab: Tab): void {
    if (this.state.tab === tab) return;
    this.state.tab = tab;
    this.state.errors.delete("topbar"); // its button is not on every tab
    this.opts.onTab?.(tab);
    if (tab === "logs") {
      this.state.logFollow = true;
      this.state.logUnseen = 0;
    }
    // The window is sent a tree only when it changed: opening the page
    // reads when it was last checked.
    if (tab === "tree") void this.refresh();
    this.armTreeRecheck();
    if (tab === "settings" && (this.state.settings.load === "idle" || this.state.settings.load === "error")) {
      void this.loadSettings();
    } else if (tab === "settings") {
      void this.refreshSettings();
    }
    this.update();
  }

  private dispatchReap(e: ReapEvent): void {
    this.state.reapFlow = reapFlow(this.state.reapFlow, e);
    this.update();
  }

  async scan(): Promise<void> {
    const before = this.state.reapFlow;
    this.dispatchReap({ type: "scan" });
    if (this.state.reapFlow === before) return;
    try {
      this.dispatchReap({ type: "scanned", report: await this.api.ScanOrphans() });
    } catch (e) {
      this.dispatchReap({ type: "scanFailed", message: errorMessage(e) });
    }
  }

  async confirmReap(): Promise<void> {
    if (this.state.reapFlow.kind !== "confirm") return;
    // Only what the user saw and confirmed: Go re-checks each one.
    const pids = wouldReap(this.state.reapFlow.scan).map((d) => d.pid);
    this.dispatchReap({ type: "confirm" });
    try {
      const r = await this.api.ReapOrphans(pids);
      this.state.lastReap = r;
      this.dispatchReap({ type: "reaped", report: r });
    } catch (e) {
      this.dispatchReap({ type: "reapFailed", message: errorMessage(e) });
    }
  }

  /** Hands the app over to its new version. Once that worked the button
   *  stays busy: this window is about to close, the new version opens its
   *  own. */
  async restartToApply(): Promise<void> {
    if (await this.run("restart-to-apply", "restart-to-apply", () => this.api.RestartToApply())) {
      this.state.busy.add("restart-to-apply");
      this.update();
    }
  }

  /** Restarts the app for the pending settings. Once that worked the
   *  button stays busy: this window is about to close. */
  async restartApp(): Promise<void> {
    if (await this.run("restart-app", "restart-app", () => this.api.RestartApp())) {
      this.state.busy.add("restart-app");
      this.update();
    }
  }

  /** Brings the first field with an error into view and focus: "Fix the
   *  highlighted fields" with none on screen helped nobody (issue 31, item 7). */
  private focusFirstSettingsError(): void {
    const first = SETTINGS_KEYS.find((k) => this.state.settings.errors[k]);
    if (first) this.focusAfterRender = `#set-${first}`;
  }

  async saveSettings(): Promise<void> {
    const st = this.state.settings;
    if (!st.draft || !st.view || st.saving) return;
    const draft = normalizeDraft(st.draft);
    st.errors = validateSettings(draft);
    if (hasErrors(st.errors)) {
      st.result = { ok: false, text: Object.keys(st.errors).length === 1 ? "Fix the highlighted field, then save again." : "Fix the highlighted fields, then save again." };
      this.focusFirstSettingsError();
      this.update();
      return;
    }
    st.saving = true;
    st.result = null;
    this.update();
    const changed = diffSettings(draft, toDraft(st.view.settings), toDraft(st.view.defaults));
    if (changed.includes("update_feed") && (await this.checkFeed(draft.update_feed))) {
      st.saving = false;
      st.result = { ok: false, text: "Fix the highlighted field, then save again." };
      this.focusFirstSettingsError();
      this.update();
      return;
    }
    const u = this.state.status?.instance.update;
    const heldBy = { update_feed: u?.feed_from, update_automatically: u?.automatic_from };
    try {
      // Only the edit: Go lays it over what is saved now, so a backend
      // added or removed since this page loaded stays as it is.
      this.setSettingsView(await this.api.SaveSettings(settingsEdit(draft, changed)));
      st.result = { ok: true, text: savedText(changed, heldBy, !!u?.build_off) };
    } catch (e) {
      // Go names the field of each error: it goes under that field, once.
      const { errors, rest } = fieldErrorsFrom(errorMessage(e));
      st.errors = errors;
      const marked = Object.keys(errors).length;
      const fix = marked === 1 ? "Fix the highlighted field, then save again." : "Fix the highlighted fields, then save again.";
      st.result = { ok: false, text: rest.length ? rest.join(" ") : fix };
      this.focusFirstSettingsError();
    } finally {
      st.saving = false;
      this.update();
    }
  }

  // ---- events -------------------------------------------------------------

  private onClick = (ev: Event): void => {
    const target = (ev.target as Element | null)?.closest?.("[data-action]") as HTMLElement | null;
    if (!target || !this.root.contains(target)) return;
    if (target instanceof HTMLButtonElement && target.disabled) return;
    if (target instanceof HTMLButtonElement && target.type === "submit") return; // handled by onSubmit
    const a = target.dataset.action ?? "";
    const name = target.dataset.name ?? "";
    // A confirmation ("Copied URL and token") lasts until the next action.
    if (this.state.notes.size) {
      this.state.notes.clear();
      this.update();
    }
    if (this.backends.click(a, target) || this.updates.click(a, target)) return;
    switch (a) {
      case "tab":
        ev.preventDefault();
        this.setTab((target.dataset.tab as Tab) ?? "backends");
        break;
      case "retry-status":
        void this.loadStatus();
        break;
      case "quit":
        void this.run("quit", "quit", () => this.api.Quit());
        break;
      case "restart-to-apply":
        void this.restartToApply();
        break;
      case "restart-app":
        void this.restartApp();
        break;
      case "restart-all":
        void this.run("restart:", "backend:", () => this.api.Restart(""));
        break;
      case "show-logs":
        this.state.logBackend = (this.state.status?.backends.length ?? 0) > 1 ? name : "";
        this.setTab("logs");
        break;
      case "save-report":
        void this.run("save-report", "logs", async () => {
          this.state.reportPath = await this.api.SaveDiagnosticReport();
        });
        break;
      case "open-report-folder":
        void this.run("open-report-folder", "logs", () => this.api.OpenReportFolder()).then((ok) => ok && this.flash("logs", "Opened in your file manager"));
        break;
      case "open-log-folder":
        void this.run("open-log-folder", "logs", () => this.api.OpenLogFolder()).then((ok) => ok && this.flash("logs", "Opened in your file manager"));
        break;
      case "jump-latest":
        this.state.logFollow = true;
        this.state.logUnseen = 0;
        this.update();
        break;
      case "clear-log-filter":
        this.state.logFilter = "";
        this.state.logBackend = "";
        this.update();
        break;
      case "reap-scan":
        void this.scan();
        break;
      case "reap-confirm":
        void this.confirmReap();
        break;
      case "reap-cancel":
        this.dispatchReap({ type: "cancel" });
        break;
      case "settings-reset": {
        const st = this.state.settings;
        if (st.view) {
          st.draft = resetToDefaults(st.view.defaults, st.view.settings);
          st.errors = {};
          st.result = { ok: true, text: "Defaults restored in the form — Save to apply" };
          this.update();
        }
        break;
      }
      case "settings-reload":
        void this.loadSettings();
        break;
      case "dismiss-notice":
        this.state.dismissedNotices.add(target.dataset.notice ?? "");
        this.update();
        break;
    }
  };

  private onSubmit = (ev: Event): void => {
    const form = ev.target as HTMLElement;
    if (form.dataset?.form === "settings") {
      ev.preventDefault();
      void this.saveSettings();
    } else if (form.dataset?.form === "add-backend") {
      ev.preventDefault();
      void this.backends.saveAddBackend();
    }
  };

  private onKeyDown = (ev: KeyboardEvent): void => {
    if (ev.key === "Escape" && this.backends.escape(ev.target as Element | null)) ev.preventDefault();
  };

  private onInput = (ev: Event): void => {
    const el = ev.target as HTMLInputElement | HTMLSelectElement;
    const kind = el.dataset?.input;
    if (!kind) return;
    if (kind === "log-filter" && ev.type === "input") {
      this.state.logFilter = el.value;
      this.state.logFollow = true;
      this.state.logUnseen = 0;
      this.update();
    } else if (kind === "log-backend" && ev.type === "change") {
      this.state.logBackend = el.value;
      this.state.logFollow = true;
      this.state.logUnseen = 0;
      this.update();
    } else if (kind === "add") {
      if (this.backends.addInput(el, ev.type)) this.updateForm(el);
    } else if (kind === "setting") {
      if (this.settingInput(el, ev.type)) this.updateForm(el);
    }
  };

  /** A Settings field changed: the draft follows; false when nothing did. */
  private settingInput(el: HTMLInputElement | HTMLSelectElement, type: string): boolean {
    const st = this.state.settings;
    if (!st.draft) return false;
    const key = el.dataset.field as SettingsKey;
    if (isBoolKey(key)) {
      if (type !== "change") return false;
      st.draft = { ...st.draft, [key]: (el as HTMLInputElement).checked };
    } else {
      if (type !== "input") return false;
      st.draft = { ...st.draft, [key]: el.value };
      // Re-check a field that was flagged, so the error clears as it is fixed.
      if (st.errors[key]) {
        const e = validateSettings(st.draft)[key];
        if (e) st.errors = { ...st.errors, [key]: e };
        else {
          const rest = { ...st.errors };
          delete rest[key];
          st.errors = rest;
        }
      }
    }
    st.result = null;
    if (key === "update_feed") this.scheduleFeedCheck();
    return true;
  }

  /** Asks Go about the typed feed once typing pauses. */
  private scheduleFeedCheck(): void {
    if (this.feedTimer !== null) clearTimeout(this.feedTimer);
    this.feedTimer = setTimeout(() => {
      this.feedTimer = null;
      const draft = this.state.settings.draft;
      if (draft && !this.destroyed) void this.checkFeed(draft.update_feed).then(() => this.update());
    }, this.opts.feedCheckMs ?? FEED_CHECK_MS);
  }

  /**
   * Puts Go's judgement of a feed (App.FeedURLError, its one rule) under
   * the field, if the field still holds it; true when Go refuses it.
   */
  private async checkFeed(typed: string): Promise<boolean> {
    const st = this.state.settings;
    let refusal = "";
    try {
      refusal = await this.api.FeedURLError(typed.trim());
    } catch {
      return false; // not asked: Save's answer says the same
    }
    if (!st.draft || st.draft.update_feed.trim() !== typed.trim()) return false;
    const rest = { ...st.errors };
    delete rest.update_feed;
    const e = fieldErrorsFrom(refusal).errors.update_feed;
    st.errors = e ? { ...rest, update_feed: e } : rest;
    return !!e;
  }

  /** visibilitychange: minimized, hidden to the tray, shown again. */
  private onVisibility = (): void => {
    const hidden = this.doc.visibilityState === "hidden";
    if (hidden === this.hidden || this.destroyed) return;
    this.hidden = hidden;
    this.reportVisible(!hidden);
    if (hidden) {
      this.stopClock();
    } else {
      this.armClock(); // at once: running times still read as when hidden
      void this.catchUp();
    }
    this.armTreeRecheck();
  };

  /** Runs the tree page's re-read while that page is shown in a visible
   *  window, and only then. */
  private armTreeRecheck(): void {
    const want = this.state.tab === "tree" && !this.hidden && !this.destroyed && this.opts.timers !== false;
    if (!want) this.stopTreeRecheck();
    else if (this.treeTimer === null) this.treeTimer = setInterval(() => void this.refresh(), TREE_RECHECK_MS);
  }

  private stopTreeRecheck(): void {
    if (this.treeTimer !== null) clearInterval(this.treeTimer);
    this.treeTimer = null;
  }

  /** Tells Go whether to send events. A failure is not shown: Go then goes
   *  on sending events, which costs a little and breaks nothing. */
  private reportVisible(visible: boolean): void {
    this.api.SetWindowVisible(visible).catch(() => {});
  }

  /** Updates the running times now and arms one timer for their next change. */
  private armClock(): void {
    this.stopClock();
    if (this.opts.timers === false || this.hidden || this.destroyed) return;
    const wait = syncClocks(this.root, this.now());
    if (Number.isFinite(wait)) this.clockTimer = setTimeout(this.tickClock, wait);
  }

  private tickClock = (): void => {
    this.clockTimer = null;
    this.armClock();
  };

  private stopClock(): void {
    if (this.clockTimer !== null) clearTimeout(this.clockTimer);
    this.clockTimer = null;
  }

  private focusNow(selector: string): void {
    this.root.querySelector<HTMLElement>(selector)?.focus();
  }

  private onScroll = (ev: Event): void => {
    const el = ev.target as HTMLElement;
    if (!(el instanceof HTMLElement) || !el.classList.contains("log-scroll")) return;
    const atBottom = el.scrollHeight - el.scrollTop - el.clientHeight < 24;
    if (atBottom !== this.state.logFollow) {
      this.state.logFollow = atBottom;
      if (atBottom) this.state.logUnseen = 0;
      this.update();
    }
  };

  // ---- rendering ----------------------------------------------------------

  /** Renders soon (coalesced). */
  update(): void {
    if (this.renderQueued) return;
    this.renderQueued = true;
    this.schedule(() => {
      this.renderQueued = false;
      this.render();
    });
  }

  /**
   * Re-renders soon (coalesced) only the form that el is in, for a keystroke:
   * nothing outside it depends on what is typed, so building and comparing
   * the whole page on every key was work for nothing (STYLE.md rule 20; the
   * bulk of a key's cost was WebKit repainting the window, which style.css's
   * input.input containment ends). A full render, queued or later, draws the
   * same form from the same state, so the value and caret survive it.
   */
  private updateForm(el: Element): void {
    const name = el.closest<HTMLElement>("form[data-form]")?.dataset.form ?? "";
    if (!(name in FORM_VIEWS) || (this.formQueued !== null && this.formQueued !== name)) {
      this.update();
      return;
    }
    if (this.renderQueued || this.formQueued !== null) return;
    this.formQueued = name;
    this.schedule(() => {
      this.formQueued = null;
      if (!this.renderQueued && !this.syncForm(name)) this.render();
    });
  }

  /** The form named name brought up to date alone; false when it is not on the page. */
  private syncForm(name: string): boolean {
    const live = this.root.querySelector(`form[data-form="${name}"]`);
    const fresh = FORM_VIEWS[name](this.state);
    if (!live || !fresh) return false;
    morph(live, fresh);
    return true;
  }

  /** Renders now. */
  render(): void {
    const s = this.state;
    const now = this.now();
    // The Boot reap page on screen shows the current report: its sidebar
    // count is seen (and comes back with the next report).
    if (s.tab === "reap" && s.load.kind === "ready") s.reapSeen = reportKey(currentReport(s));
    let content: HTMLElement;
    let visible: LogLine[] = [];
    if (s.load.kind === "loading") content = loadingView();
    else if (s.load.kind === "error") content = errorView(s.load.message, s.busy.has("retry-status"));
    else {
      switch (s.tab) {
        case "backends":
          content = backendsView(s, now);
          break;
        case "tree":
          content = treeView(s, now);
          break;
        case "logs":
          visible = visibleLogLines(s);
          content = logsView(s, visible);
          break;
        case "reap":
          content = reapView(s);
          break;
        case "settings":
          content = settingsView(s);
          break;
      }
    }
    const tree = h(
      "div.app",
      { "data-active-tab": s.tab },
      header(s),
      h(
        "div.body",
        null,
        sidebar(s, now),
        h("main.content", { id: "content", "data-key": `tab:${s.tab}` }, ...(s.load.kind === "ready" ? [updateBanner(s), ...globalBanners(s)] : []), content),
      ),
    );
    const current = this.root.firstElementChild;
    if (current) morph(current, tree);
    else this.root.appendChild(tree);
    if (s.tab === "logs" && s.load.kind === "ready") {
      this.syncLogs(visible);
      this.logChromeDrawn = logChrome(s, visible);
    } else this.logContainer = null;
    if (this.focusAfterRender) {
      this.focusNow(this.focusAfterRender);
      this.focusAfterRender = null;
    }
    this.armClock(); // for the running times just drawn
  }

  private syncLogs(visible: LogLine[]): void {
    const scroller = this.root.querySelector<HTMLElement>(".log-scroll");
    const lines = scroller?.querySelector<HTMLElement>(".log-lines") ?? null;
    if (!scroller || !lines) {
      this.logContainer = null;
      return;
    }
    const showBackend = new Set(this.state.logs.lines().map((l) => l.backend)).size > 1 && this.state.logBackend === "";
    const sig = `${this.state.logFilter}\u0000${showBackend}`;
    if (lines !== this.logContainer || sig !== this.logSig) {
      lines.textContent = "";
      this.logContainer = lines;
      this.logSig = sig;
    }
    syncLogRows(lines, visible, this.state.logFilter, showBackend);
    if (this.state.logFollow) {
      const bottom = scroller.scrollHeight - scroller.clientHeight;
      // A scroll event follows; at the bottom it leaves logFollow on.
      if (Math.abs(scroller.scrollTop - bottom) > 1) scroller.scrollTop = bottom;
    }
  }
}
