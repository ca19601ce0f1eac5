// The one writer of the page's state. Everyone else reads it as AppState
// (read only) and changes it through a named mutation here, so a grep for
// a mutation finds every place that makes that change. A mutation does not
// render: the caller says what to redraw (the page, one form, the log
// rows), since a keystroke must not rebuild the page (STYLE.md rule 20).

import { emptyAddForm, type AddForm } from "./addbackend";
import type { ReapFlow } from "./reap";
import { currentReport, initialState, reportKey, type AppState, type MutableState, type SettingsForm, type Tab } from "./state";
import type { LogLine, ReapReport, Status } from "./types";

export class Store {
  private readonly s: MutableState;

  constructor(tab: Tab, preview: boolean) {
    this.s = initialState(tab);
    this.s.preview = preview;
  }

  /** The state, read only. */
  get state(): AppState {
    return this.s;
  }

  // ---- the tab and the status ----------------------------------------------

  /** Shows another tab: the header's error goes (its button is not on
   *  every tab), and the Logs tab follows new lines from the bottom. */
  showTab(tab: Tab): void {
    this.s.tab = tab;
    this.s.errors.delete("topbar");
    if (tab === "logs") this.followLogs(true);
    this.seeReap();
  }

  /** A status from Go: the page is ready, a Remove question for a backend
   *  that is gone goes with it. */
  statusArrived(st: Status): void {
    this.s.status = st;
    this.s.load = { kind: "ready" };
    this.s.refreshError = null;
    const names = new Set((st.backends ?? []).map((b) => b.name));
    if (this.s.removeConfirm !== null && !names.has(this.s.removeConfirm)) this.s.removeConfirm = null;
    this.seeReap();
  }

  /** Status() failed: the error page before the first status, a banner over
   *  the last good one after it. */
  statusFailed(message: string, firstLoad: boolean): void {
    if (firstLoad && this.s.load.kind !== "ready") this.s.load = { kind: "error", message };
    else if (this.s.load.kind === "ready") this.s.refreshError = message;
  }

  /** The Boot reap page on screen shows the current report: its sidebar
   *  count is seen (and comes back with the next report). */
  private seeReap(): void {
    if (this.s.tab === "reap" && this.s.load.kind === "ready") this.s.reapSeen = reportKey(currentReport(this.s));
  }

  // ---- busy keys, errors, confirmations --------------------------------------

  /** An action under key started; false when one is running already. */
  begin(key: string): boolean {
    if (this.s.busy.has(key)) return false;
    this.s.busy.add(key);
    return true;
  }

  /** Marks key busy for good: the window is about to close. */
  stayBusy(key: string): void {
    this.s.busy.add(key);
  }

  end(key: string): void {
    this.s.busy.delete(key);
  }

  fail(key: string, message: string): void {
    this.s.errors.set(key, message);
  }

  clearError(key: string): void {
    this.s.errors.delete(key);
  }

  note(key: string, text: string): void {
    this.s.notes.set(key, text);
  }

  /** Ends a confirmation, if it is still the one given. */
  unnote(key: string, text: string): void {
    if (this.s.notes.get(key) === text) this.s.notes.delete(key);
  }

  /** Every confirmation goes at the next action; false when there was none. */
  clearNotes(): boolean {
    if (this.s.notes.size === 0) return false;
    this.s.notes.clear();
    return true;
  }

  dismissNotice(notice: string): void {
    this.s.dismissedNotices.add(notice);
  }

  // ---- logs -----------------------------------------------------------------

  /** Keeps new lines; answers how many were new. */
  addLogs(lines: LogLine[]): number {
    const added = this.s.logs.add(lines);
    if (added > 0 && !this.s.logFollow) this.s.logUnseen += added;
    return added;
  }

  /** Follows new lines at the bottom (the unseen count goes), or stops. */
  followLogs(follow: boolean): void {
    this.s.logFollow = follow;
    if (follow) this.s.logUnseen = 0;
  }

  filterLogs(text: string): void {
    this.s.logFilter = text;
    this.followLogs(true);
  }

  /** Shows every line again: no filter, every backend. */
  clearLogFilter(): void {
    this.s.logFilter = "";
    this.s.logBackend = "";
  }

  /** Shows one backend's lines ("" all of them). */
  pickLogBackend(name: string): void {
    this.s.logBackend = name;
  }

  reportSaved(path: string): void {
    this.s.reportPath = path;
  }

  // ---- boot reap --------------------------------------------------------------

  reapFlowTo(flow: ReapFlow): void {
    this.s.reapFlow = flow;
  }

  reapReported(r: ReapReport): void {
    this.s.lastReap = r;
    this.seeReap();
  }

  // ---- the Backends page's forms ---------------------------------------------

  /** The backend whose Remove waits for a yes (null: none). */
  askRemove(name: string | null): void {
    this.s.removeConfirm = name;
  }

  /** Changes the open Add backend form in place. */
  editAddForm(patch: Partial<AddForm>): void {
    Object.assign(this.s.addForm, patch);
  }

  /** Closes the Add backend form and forgets what it held. */
  resetAddForm(): void {
    this.s.addForm = emptyAddForm();
  }

  // ---- the Settings page ------------------------------------------------------

  /** Changes the Settings form in place. */
  editSettings(patch: Partial<SettingsForm>): void {
    Object.assign(this.s.settings, patch);
  }
}
