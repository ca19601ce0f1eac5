// What a click does, as a table: each data-action value names one entry.
// The App looks the clicked action up in the tables (this one, the
// Backends page's in src/backendactions.ts, the update banner's in
// src/update.ts) and calls it with what actions may use (ActionContext).

import { errorMessage } from "./format";
import { reapFlow, wouldReap, type ReapEvent } from "./reap";
import type { AppState, Tab } from "./state";
import type { Store } from "./store";
import type { HermesAPI } from "./types";

/** What an action may use: the state's owner, the engine, the page. */
export interface ActionContext {
  readonly store: Store;
  readonly state: AppState;
  readonly api: HermesAPI;
  /** Runs fn with a busy key, showing its error inline under errKey;
   *  false when it failed or was running already. */
  run(busyKey: string, errKey: string, fn: () => Promise<unknown>): Promise<boolean>;
  /** Renders soon. */
  update(): void;
  /** Reads the status once more (after a change the next event would bring). */
  refresh(): Promise<void>;
  /** Shows a short confirmation under key for a few seconds. */
  flash(key: string, text: string): void;
  /** Focuses what the selector names after the next render. */
  focusAfterRender(selector: string): void;
  focusNow(selector: string): void;
  setTab(tab: Tab): void;
  loadStatus(): Promise<void>;
  /** The Settings page's own actions (src/settingsactions.ts). */
  readonly settings: { load(): Promise<void>; reset(): void };
}

/** One entry of an action table: the context, the clicked element (its
 *  data-name and other data- attributes), the click. */
export type Action = (c: ActionContext, target: HTMLElement, ev: Event) => void;

/** The actions of the shell, the Logs and Boot reap pages and the Settings
 *  page's buttons. */
export const APP_ACTIONS: Readonly<Record<string, Action>> = {
  tab: (c, target, ev) => {
    ev.preventDefault();
    c.setTab((target.dataset.tab as Tab) ?? "backends");
  },
  "retry-status": (c) => void c.loadStatus(),
  quit: (c) => void c.run("quit", "quit", () => c.api.Quit()),
  // Hands the app over to the version a package upgrade installed.
  "apply-installed-update": (c) => void handOverAndStay(c, "apply-installed-update", () => c.api.ApplyInstalledUpdate()),
  // Relaunches the app for the pending settings.
  relaunch: (c) => void handOverAndStay(c, "relaunch", () => c.api.Relaunch()),
  "restart-all": (c) => void c.run("restart:", "backend:", () => c.api.Restart("")),
  "show-logs": (c, target) => {
    c.store.pickLogBackend((c.state.status?.backends.length ?? 0) > 1 ? (target.dataset.name ?? "") : "");
    c.setTab("logs");
  },
  "save-report": (c) =>
    void c.run("save-report", "logs", async () => {
      c.store.reportSaved(await c.api.SaveDiagnosticReport());
    }),
  "open-report-folder": (c) => void c.run("open-report-folder", "logs", () => c.api.OpenReportFolder()).then((ok) => ok && c.flash("logs", "Opened in your file manager")),
  "open-log-folder": (c) => void c.run("open-log-folder", "logs", () => c.api.OpenLogFolder()).then((ok) => ok && c.flash("logs", "Opened in your file manager")),
  "jump-latest": (c) => {
    c.store.followLogs(true);
    c.update();
  },
  "clear-log-filter": (c) => {
    c.store.clearLogFilter();
    c.update();
  },
  "reap-scan": (c) => void scan(c),
  "reap-confirm": (c) => void confirmReap(c),
  "reap-cancel": (c) => dispatchReap(c, { type: "cancel" }),
  "settings-reset": (c) => c.settings.reset(),
  "settings-reload": (c) => void c.settings.load(),
  "dismiss-notice": (c, target) => {
    c.store.dismissNotice(target.dataset.notice ?? "");
    c.update();
  },
};

/** Hands the app over to a new run of itself (a relaunch, or an update to
 *  apply). Once that worked the button stays busy: this window is about
 *  to close, and the new instance opens its own. */
async function handOverAndStay(c: ActionContext, key: string, fn: () => Promise<void>): Promise<void> {
  if (await c.run(key, key, fn)) {
    c.store.stayBusy(key);
    c.update();
  }
}

function dispatchReap(c: ActionContext, e: ReapEvent): void {
  c.store.reapFlowTo(reapFlow(c.state.reapFlow, e));
  c.update();
}

/** The dry run behind "Scan now". */
async function scan(c: ActionContext): Promise<void> {
  const before = c.state.reapFlow;
  dispatchReap(c, { type: "scan" });
  if (c.state.reapFlow === before) return;
  try {
    dispatchReap(c, { type: "scanned", report: await c.api.ScanOrphans() });
  } catch (e) {
    dispatchReap(c, { type: "scanFailed", message: errorMessage(e) });
  }
}

/** Reaps what the confirmed scan would. */
async function confirmReap(c: ActionContext): Promise<void> {
  const flow = c.state.reapFlow;
  if (flow.kind !== "confirm") return;
  // Only what the user saw and confirmed: Go re-checks each one.
  const pids = wouldReap(flow.scan).map((d) => d.pid);
  dispatchReap(c, { type: "confirm" });
  try {
    const r = await c.api.ReapOrphans(pids);
    c.store.reapReported(r);
    dispatchReap(c, { type: "reaped", report: r });
  } catch (e) {
    dispatchReap(c, { type: "reapFailed", message: errorMessage(e) });
  }
}
