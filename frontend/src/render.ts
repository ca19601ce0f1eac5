// Drawing the page from the state: the whole page (coalesced), one form
// for a keystroke, the log rows for new lines, and the one timer that
// keeps running times true. It reads the state and writes only the DOM.

import { syncClocks } from "./clock";
import { h, morph } from "./dom";
import type { AppState } from "./state";
import type { LogLine } from "./types";
import { addFormView, backendsView } from "./views/backends";
import { logChrome, logCountText, logsView, syncLogRows, visibleLogLines } from "./views/logs";
import { reapView } from "./views/reap";
import { settingsForm, settingsView } from "./views/settings";
import { errorView, globalBanners, header, loadingView, sidebar } from "./views/shell";
import { treeView } from "./views/tree";
import { updateBanner } from "./views/update";

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

/** What the renderer needs of the page around it. */
export interface RenderHost {
  readonly root: HTMLElement;
  readonly state: AppState;
  now(): number;
  schedule(fn: () => void): void;
  /** Whether the running times may arm their timer (a visible page, timers on). */
  clockOn(): boolean;
  /** Draws the whole page now: the App's render, which calls renderNow. */
  render(): void;
}

export class Renderer {
  private renderQueued = false;
  private logsQueued = false;
  /** The data-form of the form a keystroke changed, to be re-rendered alone. */
  private formQueued: string | null = null;
  /** logChrome of the Logs tab as last rendered in full. */
  private logChromeDrawn = "";
  private logSig = "";
  private logContainer: HTMLElement | null = null;
  /** A selector to focus after the next render (a form opened or closed). */
  private focusSelector: string | null = null;
  /** The one timer: due when a running time on the page next reads
   *  differently. Never armed while hidden. */
  private clockTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(private readonly host: RenderHost) {}

  /** Renders soon (coalesced). */
  update(): void {
    if (this.renderQueued) return;
    this.renderQueued = true;
    this.host.schedule(() => {
      this.renderQueued = false;
      this.host.render();
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
  updateForm(el: Element): void {
    const name = el.closest<HTMLElement>("form[data-form]")?.dataset.form ?? "";
    if (!(name in FORM_VIEWS) || (this.formQueued !== null && this.formQueued !== name)) {
      this.update();
      return;
    }
    if (this.renderQueued || this.formQueued !== null) return;
    this.formQueued = name;
    this.host.schedule(() => {
      this.formQueued = null;
      if (!this.renderQueued && !this.syncForm(name)) this.host.render();
    });
  }

  /**
   * New lines on the Logs tab: when nothing but the rows and the count would
   * change, only they are touched, not the whole page rebuilt and compared
   * (a backend that logs a line a second would otherwise cost that each
   * second). Anything else (the first line, a jump button's count, a new
   * backend to filter by) takes a full render.
   */
  updateLogs(): void {
    if (this.renderQueued || this.logsQueued) return;
    this.logsQueued = true;
    this.host.schedule(() => {
      this.logsQueued = false;
      if (!this.renderQueued && !this.syncLogsOnly()) this.host.render();
    });
  }

  /** Focuses what selector names after the next render. */
  focusAfterRender(selector: string): void {
    this.focusSelector = selector;
  }

  focusNow(selector: string): void {
    this.host.root.querySelector<HTMLElement>(selector)?.focus();
  }

  /** Renders now. */
  renderNow(): void {
    const s = this.host.state;
    const now = this.host.now();
    let visible: LogLine[] = [];
    if (s.tab === "logs" && s.load.kind === "ready") visible = visibleLogLines(s);
    const tree = h(
      "div.app",
      { "data-active-tab": s.tab },
      header(s),
      h(
        "div.body",
        null,
        sidebar(s, now),
        h("main.content", { id: "content", "data-key": `tab:${s.tab}` }, ...(s.load.kind === "ready" ? [updateBanner(s), ...globalBanners(s)] : []), content(s, now, visible)),
      ),
    );
    const current = this.host.root.firstElementChild;
    if (current) morph(current, tree);
    else this.host.root.appendChild(tree);
    if (s.tab === "logs" && s.load.kind === "ready") {
      this.syncLogs(visible);
      this.logChromeDrawn = logChrome(s, visible);
    } else this.logContainer = null;
    if (this.focusSelector) {
      this.focusNow(this.focusSelector);
      this.focusSelector = null;
    }
    this.armClock(); // for the running times just drawn
  }

  /** Updates the running times now and arms one timer for their next change. */
  armClock(): void {
    this.stopClock();
    if (!this.host.clockOn()) return;
    const wait = syncClocks(this.host.root, this.host.now());
    if (Number.isFinite(wait)) this.clockTimer = setTimeout(this.tickClock, wait);
  }

  private tickClock = (): void => {
    this.clockTimer = null;
    this.armClock();
  };

  stopClock(): void {
    if (this.clockTimer !== null) clearTimeout(this.clockTimer);
    this.clockTimer = null;
  }

  /** The rows and the count brought up to date alone; false when that is not enough. */
  private syncLogsOnly(): boolean {
    const s = this.host.state;
    if (s.tab !== "logs" || s.load.kind !== "ready" || !this.logContainer?.isConnected) return false;
    const visible = visibleLogLines(s);
    if (logChrome(s, visible) !== this.logChromeDrawn) return false;
    const count = this.host.root.querySelector<HTMLElement>(".log-count");
    if (!count) return false;
    count.textContent = logCountText(s, visible);
    this.syncLogs(visible);
    return true;
  }

  /** The form named name brought up to date alone; false when it is not on the page. */
  private syncForm(name: string): boolean {
    const live = this.host.root.querySelector(`form[data-form="${name}"]`);
    const fresh = FORM_VIEWS[name](this.host.state);
    if (!live || !fresh) return false;
    morph(live, fresh);
    return true;
  }

  private syncLogs(visible: LogLine[]): void {
    const s = this.host.state;
    const scroller = this.host.root.querySelector<HTMLElement>(".log-scroll");
    const lines = scroller?.querySelector<HTMLElement>(".log-lines") ?? null;
    if (!scroller || !lines) {
      this.logContainer = null;
      return;
    }
    const showBackend = new Set(s.logs.lines().map((l) => l.backend)).size > 1 && s.logBackend === "";
    const sig = `${s.logFilter}\u0000${showBackend}`;
    if (lines !== this.logContainer || sig !== this.logSig) {
      lines.textContent = "";
      this.logContainer = lines;
      this.logSig = sig;
    }
    syncLogRows(lines, visible, s.logFilter, showBackend);
    if (s.logFollow) {
      const bottom = scroller.scrollHeight - scroller.clientHeight;
      // A scroll event follows; at the bottom it leaves logFollow on.
      if (Math.abs(scroller.scrollTop - bottom) > 1) scroller.scrollTop = bottom;
    }
  }
}

/** The page of the tab shown (or the loading and error pages). */
function content(s: AppState, now: number, visible: LogLine[]): HTMLElement {
  if (s.load.kind === "loading") return loadingView();
  if (s.load.kind === "error") return errorView(s.load.message, s.busy.has("retry-status"));
  switch (s.tab) {
    case "backends":
      return backendsView(s, now);
    case "tree":
      return treeView(s, now);
    case "logs":
      return logsView(s, visible);
    case "reap":
      return reapView(s);
    case "settings":
      return settingsView(s);
  }
}
