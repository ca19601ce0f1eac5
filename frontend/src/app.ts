// The controller: wires the page together. It brings Go's status and log
// lines into the Store, hands each click to its entry in the action
// tables and each keystroke to its form, and asks the Renderer to draw.
// The state has one writer, the Store; the DOM one, the Renderer.

import { APP_ACTIONS, type Action, type ActionContext } from "./actions";
import { addInput, BACKEND_ACTIONS, escape, saveAddBackend } from "./backendactions";
import { errorMessage } from "./format";
import { Renderer } from "./render";
import { FEED_CHECK_MS, SettingsActions } from "./settingsactions";
import type { AppState, Tab } from "./state";
import { Store } from "./store";
import type { HermesAPI, LogLine, Status, Unsubscribe } from "./types";
import { UPDATE_ACTIONS } from "./update";

export const INITIAL_LOG_LINES = 500;

/** How often the Process tree page reads the status while it is shown: Go
 *  sends a tree only when it changes, so without this "checked" would stand
 *  still while the sampler goes on (leakguard's default interval). */
export const TREE_RECHECK_MS = 5000;

/** How long a confirmation such as "Opened in your browser" stays. */
export const FLASH_MS = 4000;

/** Every click's action, by its data-action. */
const ACTIONS: Readonly<Record<string, Action>> = { ...APP_ACTIONS, ...BACKEND_ACTIONS, ...UPDATE_ACTIONS };

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
  readonly store: Store;
  private readonly subs: Unsubscribe[] = [];
  private readonly doc: Document;
  private readonly renderer: Renderer;
  private readonly settings: SettingsActions;
  private readonly ctx: ActionContext;
  /** Reads the status again while the Process tree page is shown. */
  private treeTimer: ReturnType<typeof setInterval> | null = null;
  /** The window cannot be seen: no timer runs and Go sends no events. */
  private hidden = false;
  private destroyed = false;
  private logsRequested = new Set<string>();

  constructor(
    private readonly api: HermesAPI,
    private readonly root: HTMLElement,
    private readonly opts: AppOptions = {},
  ) {
    this.store = new Store(opts.initialTab ?? "backends", !!opts.preview);
    this.doc = opts.doc ?? document;
    const now = opts.now ?? (() => Date.now());
    const schedule = opts.schedule ?? ((fn) => requestAnimationFrame(() => fn()));
    this.renderer = new Renderer({
      root,
      state: this.store.state,
      now,
      schedule,
      clockOn: () => this.opts.timers !== false && !this.hidden && !this.destroyed,
      render: () => this.render(),
    });
    const page = {
      store: this.store,
      state: this.store.state,
      api,
      update: () => this.update(),
      focusAfterRender: (selector: string) => this.renderer.focusAfterRender(selector),
    };
    this.settings = new SettingsActions({ ...page, alive: () => !this.destroyed, feedCheckMs: opts.feedCheckMs ?? FEED_CHECK_MS });
    this.ctx = {
      ...page,
      run: (busyKey, errKey, fn) => this.run(busyKey, errKey, fn),
      refresh: () => this.refresh(),
      flash: (key, text) => this.flash(key, text),
      focusNow: (selector) => this.renderer.focusNow(selector),
      setTab: (tab) => this.setTab(tab),
      loadStatus: () => this.loadStatus(),
      settings: { load: () => this.settings.load(), reset: () => this.settings.reset() },
    };
    root.addEventListener("click", this.onClick);
    root.addEventListener("input", this.onInput);
    root.addEventListener("change", this.onInput);
    root.addEventListener("submit", this.onSubmit);
    root.addEventListener("keydown", this.onKeyDown);
    root.addEventListener("scroll", this.onScroll, true);
  }

  /** The state, read only: the Store writes it. */
  get state(): AppState {
    return this.store.state;
  }

  /** Subscribes to events, then loads the first status and logs. */
  async start(): Promise<void> {
    this.subs.push(
      this.api.onStatus((s) => this.applyStatus(s)),
      this.api.onLogs((lines) => this.addLogs(lines)),
      this.api.onReap((r) => {
        this.store.reapReported(r);
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
      if (this.state.tab === "settings") void this.settings.load();
      await this.loadStatus();
      return;
    }
    this.render();
    this.armTreeRecheck();
    await this.loadStatus();
    if (this.state.tab === "settings") await this.settings.load();
  }

  destroy(): void {
    this.destroyed = true;
    for (const u of this.subs.splice(0)) u();
    this.renderer.stopClock();
    this.settings.destroy();
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
    this.store.begin("retry-status");
    // Only the error page has a Retry to show busy. While "Connecting…" is
    // drawn, a render here is a frame the WebKit main thread paints
    // before it hands over Status()'s answer: "Connecting…" stayed that much
    // longer (issue 23).
    if (this.state.load.kind === "error") this.update();
    try {
      this.applyStatus(await this.api.Status());
    } catch (e) {
      this.store.statusFailed(errorMessage(e), true);
    } finally {
      this.store.end("retry-status");
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
      if (known.has(b.name)) void this.loadLogs(b.name, this.state.logs.lastSeq(b.name), this.state.logs.cap, "the latest");
    }
  }

  private async refresh(): Promise<void> {
    try {
      this.applyStatus(await this.api.Status());
    } catch (e) {
      if (this.state.load.kind === "ready") {
        this.store.statusFailed(errorMessage(e), false);
        this.update();
      }
    }
  }

  applyStatus(st: Status): void {
    this.store.statusArrived(st);
    for (const b of st.backends ?? []) {
      // The one Logs() call per backend; after that "logs" events carry everything.
      if (this.logsRequested.has(b.name)) continue;
      this.logsRequested.add(b.name);
      void this.loadLogs(b.name, 0, INITIAL_LOG_LINES, "earlier");
    }
    this.update();
  }

  private async loadLogs(name: string, after: number, max: number, which: string): Promise<void> {
    try {
      this.addLogs(await this.api.Logs(name, after, max));
    } catch (e) {
      this.store.fail("logs", `Could not load ${which} lines of ${name}: ${errorMessage(e)}`);
      this.update();
    }
  }

  addLogs(lines: LogLine[]): void {
    if (this.store.addLogs(lines) === 0) return;
    if (this.state.tab === "logs") this.renderer.updateLogs();
  }

  // ---- actions ------------------------------------------------------------

  /** Runs an action with a busy key, showing its error inline under errKey. */
  private async run(busyKey: string, errKey: string, fn: () => Promise<unknown>): Promise<boolean> {
    if (!this.store.begin(busyKey)) return false;
    this.store.clearError(errKey);
    this.update();
    try {
      await fn();
      return true;
    } catch (e) {
      this.store.fail(errKey, errorMessage(e));
      return false;
    } finally {
      this.store.end(busyKey);
      this.update();
    }
  }

  /** A confirmation under key ("Opened in your browser"), gone after a few
   *  seconds or at the next click, whichever comes first. One timer, that
   *  ends. */
  private flash(key: string, text: string): void {
    this.store.note(key, text);
    this.update();
    setTimeout(() => {
      if (this.destroyed || this.state.notes.get(key) !== text) return;
      this.store.unnote(key, text);
      this.update();
    }, FLASH_MS);
  }

  setTab(tab: Tab): void {
    if (this.state.tab === tab) return;
    this.store.showTab(tab);
    this.opts.onTab?.(tab);
    // The window is sent a tree only when it changed: opening the page
    // reads when it was last checked.
    if (tab === "tree") void this.refresh();
    this.armTreeRecheck();
    const load = this.state.settings.load;
    if (tab === "settings" && (load === "idle" || load === "error")) void this.settings.load();
    else if (tab === "settings") void this.settings.refresh();
    this.update();
  }

  // ---- events -------------------------------------------------------------

  private onClick = (ev: Event): void => {
    const target = (ev.target as Element | null)?.closest?.("[data-action]") as HTMLElement | null;
    if (!target || !this.root.contains(target)) return;
    if (target instanceof HTMLButtonElement && target.disabled) return;
    if (target instanceof HTMLButtonElement && target.type === "submit") return; // handled by onSubmit
    // A confirmation ("Copied URL and token") lasts until the next action.
    if (this.store.clearNotes()) this.update();
    const name = target.dataset.action ?? "";
    if (Object.hasOwn(ACTIONS, name)) ACTIONS[name](this.ctx, target, ev);
  };

  private onSubmit = (ev: Event): void => {
    const form = ev.target as HTMLElement;
    if (form.dataset?.form === "settings") {
      ev.preventDefault();
      void this.settings.save();
    } else if (form.dataset?.form === "add-backend") {
      ev.preventDefault();
      void saveAddBackend(this.ctx);
    }
  };

  private onKeyDown = (ev: KeyboardEvent): void => {
    if (ev.key === "Escape" && escape(this.ctx, ev.target as Element | null)) ev.preventDefault();
  };

  private onInput = (ev: Event): void => {
    const el = ev.target as HTMLInputElement | HTMLSelectElement;
    const kind = el.dataset?.input;
    if (kind === "log-filter" && ev.type === "input") {
      this.store.filterLogs(el.value);
      this.update();
    } else if (kind === "log-backend" && ev.type === "change") {
      this.store.pickLogBackend(el.value);
      this.store.followLogs(true);
      this.update();
    } else if (kind === "add") {
      if (addInput(this.ctx, el, ev.type)) this.renderer.updateForm(el);
    } else if (kind === "setting") {
      if (this.settings.input(el, ev.type)) this.renderer.updateForm(el);
    }
  };

  /** visibilitychange: minimized, hidden to the tray, shown again. */
  private onVisibility = (): void => {
    const hidden = this.doc.visibilityState === "hidden";
    if (hidden === this.hidden || this.destroyed) return;
    this.hidden = hidden;
    this.reportVisible(!hidden);
    if (hidden) {
      this.renderer.stopClock();
    } else {
      this.renderer.armClock(); // at once: running times still read as when hidden
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

  private onScroll = (ev: Event): void => {
    const el = ev.target as HTMLElement;
    if (!(el instanceof HTMLElement) || !el.classList.contains("log-scroll")) return;
    const atBottom = el.scrollHeight - el.scrollTop - el.clientHeight < 24;
    if (atBottom !== this.state.logFollow) {
      this.store.followLogs(atBottom);
      this.update();
    }
  };

  // ---- rendering ----------------------------------------------------------

  /** Renders soon (coalesced). */
  update(): void {
    this.renderer.update();
  }

  /** Renders now. */
  render(): void {
    this.renderer.renderNow();
  }
}
