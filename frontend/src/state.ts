// The page's state and pure derivations from it. Its one writer is the
// Store (src/store.ts); everyone else sees it as AppState, read only.

import { emptyAddForm, type AddForm } from "./addbackend";
import { LogBuffer } from "./logbuffer";
import { initialReapFlow, type ReapFlow } from "./reap";
import type { SettingsDraft, SettingsErrors } from "./settings";
import type { ReapReport, SettingsView, Status } from "./types";

export type Tab = "backends" | "tree" | "logs" | "reap" | "settings";

export const TABS: { id: Tab; label: string }[] = [
  { id: "backends", label: "Backends" },
  { id: "tree", label: "Process tree" },
  { id: "logs", label: "Logs" },
  { id: "reap", label: "Boot reap" },
  { id: "settings", label: "Settings" },
];

/** The tab a location hash names ("#logs"), or the default. */
export function tabFromHash(hash: string): Tab {
  const id = hash.replace(/^#\/?/, "").split(/[/?&]/)[0];
  return TABS.some((t) => t.id === id) ? (id as Tab) : "backends";
}

export type LoadState = { kind: "loading" } | { kind: "error"; message: string } | { kind: "ready" };

export interface SettingsForm {
  load: "idle" | "loading" | "ready" | "error";
  loadError: string;
  view: SettingsView | null;
  draft: SettingsDraft | null;
  /** Field errors shown once the user tried to save (or edited a field). */
  errors: SettingsErrors;
  saving: boolean;
  result: { ok: boolean; text: string } | null;
}

/** The state as its owner, the Store, holds it. */
export interface MutableState {
  tab: Tab;
  load: LoadState;
  status: Status | null;
  /** Set when a later Status refresh failed; the last good status stays shown. */
  refreshError: string | null;
  /** Keys of actions whose promise is pending, e.g. "restart:hermes". */
  busy: Set<string>;
  /** Inline errors by scope, e.g. "backend:hermes", "quit", "logs". */
  errors: Map<string, string>;
  /** Short confirmations by scope ("backend:api" -> "Copied URL and
   *  token"), cleared by the next action; never a secret. */
  notes: Map<string, string>;
  /** The Add backend form on the Backends page. */
  addForm: AddForm;
  /** The backend whose Remove waits for a confirmation, if any. */
  removeConfirm: string | null;
  logs: LogBuffer;
  logFilter: string;
  /** "" = all backends. */
  logBackend: string;
  /** Where "Save a diagnostic report…" saved the last report ("": none). */
  reportPath: string;
  logFollow: boolean;
  /** Lines that arrived while auto-scroll was paused. */
  logUnseen: number;
  reapFlow: ReapFlow;
  /** The latest report from a "reap" event; newer than status.boot_reap. */
  lastReap: ReapReport | null;
  /** reportKey of the last report the Boot reap page showed: the sidebar's
   *  count is for news, and goes once the page has been seen. */
  reapSeen: string;
  settings: SettingsForm;
  dismissedNotices: Set<string>;
  /** True when the data comes from the built-in simulator (no Wails). */
  preview: boolean;
}

/**
 * The state as the views and actions see it: every field read only, the
 * busy keys, errors, notes and forms too. A change is a Store mutation.
 */
export type AppState = Readonly<Omit<MutableState, "busy" | "errors" | "notes" | "dismissedNotices" | "settings" | "addForm">> & {
  readonly busy: ReadonlySet<string>;
  readonly errors: ReadonlyMap<string, string>;
  readonly notes: ReadonlyMap<string, string>;
  readonly dismissedNotices: ReadonlySet<string>;
  readonly settings: Readonly<SettingsForm>;
  readonly addForm: Readonly<AddForm>;
};

export function initialState(tab: Tab = "backends"): MutableState {
  return {
    tab,
    load: { kind: "loading" },
    status: null,
    refreshError: null,
    busy: new Set(),
    errors: new Map(),
    notes: new Map(),
    addForm: emptyAddForm(),
    removeConfirm: null,
    logs: new LogBuffer(),
    logFilter: "",
    logBackend: "",
    reportPath: "",
    logFollow: true,
    logUnseen: 0,
    reapFlow: initialReapFlow,
    lastReap: null,
    reapSeen: "",
    settings: { load: "idle", loadError: "", view: null, draft: null, errors: {}, saving: false, result: null },
    dismissedNotices: new Set(),
    preview: false,
  };
}

export type Tone = "ok" | "busy" | "bad" | "idle" | "info";

/** The header's one-glance summary: "1 backend ready", "2 of 3 ready". */
export function instanceSummary(status: Status | null): { text: string; tone: Tone } {
  if (!status) return { text: "Connecting…", tone: "idle" };
  const bs = status.backends ?? [];
  if (bs.length === 0) return { text: "No backends configured", tone: "idle" };
  const n = (st: string) => bs.filter((b) => b.state === st).length;
  // An attached backend (someone else's Hermes) serves as well as our own.
  const ready = n("ready") + n("external");
  const failed = n("failed");
  const busy = n("starting") + n("restarting");
  const stopped = n("stopped");
  const noun = bs.length === 1 ? "backend" : "backends";
  if (failed > 0) {
    return { text: bs.length === 1 ? "Backend failed" : `${failed} of ${bs.length} backends failed`, tone: "bad" };
  }
  if (ready === bs.length) return { text: `${ready} ${noun} ready`, tone: "ok" };
  if (busy > 0) {
    const verb = n("restarting") > 0 && n("starting") === 0 ? "restarting" : "starting";
    return { text: bs.length === 1 ? `Backend ${verb}…` : `${ready} of ${bs.length} ready, ${busy} ${verb}…`, tone: "busy" };
  }
  if (stopped === bs.length) return { text: bs.length === 1 ? "Backend stopped" : `All ${bs.length} backends stopped`, tone: "idle" };
  return { text: `${ready} of ${bs.length} backends ready`, tone: "idle" };
}

/**
 * Go's notices as the page shows them. The Restart to apply banner says
 * the app was updated, with its button; a notice that says the same (as an
 * earlier version did) is not shown twice.
 */
export function shownNotices(status: Status | null): string[] {
  const ns = (status?.notices ?? []).filter((n) => n);
  return status?.instance.restart_to_apply ? ns.filter((n) => !/restart to apply/i.test(n)) : ns;
}

/** What tells one report from the next: when it started, and its kind. */
export function reportKey(r: ReapReport | null): string {
  return r ? `${r.started_at}:${r.dry_run ? "scan" : "reap"}` : "";
}

/**
 * The Boot reap count in the sidebar: what the current report reaped (or a
 * scan would reap), until the Boot reap page has shown it. A newer report
 * (a reap at the next start, a scan from the command line) brings it back.
 */
export function unseenReapCount(s: Pick<AppState, "lastReap" | "status" | "reapSeen">): number {
  const r = currentReport(s);
  if (!r || reportKey(r) === s.reapSeen) return 0;
  const n = (r.decisions ?? []).filter((d) => d.action === (r.dry_run ? "would-reap" : "reaped")).length;
  return n;
}

/** The report the Boot reap tab shows: the latest event, else the boot one. */
export function currentReport(s: Pick<AppState, "lastReap" | "status">): ReapReport | null {
  return s.lastReap ?? s.status?.boot_reap ?? null;
}
