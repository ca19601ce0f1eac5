// The one module that touches the Wails globals. Everything else receives a
// HermesAPI and never looks at window.go or window.runtime.

import type {
  BackendStatus,
  HermesAPI,
  LogLine,
  ReapReport,
  SettingsView,
  Status,
  TreeSample,
  Unsubscribe,
  Wire,
} from "./types";

import type { Quoting } from "./format";

export type { HermesAPI } from "./types";

/** The subset of the Wails runtime the page uses. */
interface WailsRuntime {
  EventsOn(name: string, cb: (...data: unknown[]) => void): () => void;
  BrowserOpenURL(url: string): void;
  ClipboardSetText(text: string): Promise<boolean>;
  Environment(): Promise<{ platform: string }>;
}

/**
 * The quoting of the platform the engine runs on (Wails' Environment); the
 * shell's if that cannot be told, so the page starts either way.
 */
export async function platformQuoting(w: Window = window): Promise<Quoting> {
  try {
    const env = await w.runtime?.Environment();
    return env?.platform === "windows" ? "windows" : "posix";
  } catch {
    return "posix";
  }
}

declare global {
  interface Window {
    go?: { main?: { App?: Wire.BoundApp } };
    runtime?: WailsRuntime;
    /** What Go served the page with (app_boot.go). */
    __HERMES_BOOT__?: { status?: Wire.Status; platform?: string };
  }
}

/** The status and platform (Go's GOOS) the page was served with, if any. */
export function bootData(w: Window = window): { status: Status | null; quoting: Quoting | null; platform: string | null } {
  const b = w.__HERMES_BOOT__;
  if (!b) return { status: null, quoting: null, platform: null };
  return {
    status: b.status ? normalizeStatus(b.status) : null,
    quoting: b.platform ? (b.platform === "windows" ? "windows" : "posix") : null,
    platform: b.platform ?? null,
  };
}

/** True when the page runs inside the Wails webview. */
export function hasWails(w: Window = window): boolean {
  return !!(w.go && w.go.main && w.go.main.App && w.runtime);
}

/**
 * Go marshals nil slices as null; the rest of the UI expects arrays. The
 * return types (Normalized, src/types.ts) make tsc list any array missed.
 */
export function normalizeStatus(s: Wire.Status): Status {
  return {
    ...s,
    backends: (s.backends ?? []).map(normalizeBackend),
    boot_reap: s.boot_reap && normalizeReport(s.boot_reap),
    last_reap: s.last_reap && normalizeReport(s.last_reap),
    notices: s.notices ?? [],
  };
}

function normalizeBackend(b: Wire.BackendStatus): BackendStatus {
  return { ...b, command: b.command ?? [], tree: b.tree && normalizeTree(b.tree) };
}

function normalizeTree(t: Wire.TreeSample): TreeSample {
  return {
    ...t,
    processes: (t.processes ?? []).map((p) => ({ ...p, argv: p.argv ?? [] })),
    duplicates: (t.duplicates ?? []).map((d) => ({ ...d, argv: d.argv ?? [], pids: d.pids ?? [] })),
    warnings: t.warnings ?? [],
  };
}

export function normalizeSettingsView(v: Wire.SettingsView): SettingsView {
  return { ...v, pending: v.pending ?? [] };
}

export function normalizeReport(r: Wire.ReapReport): ReapReport {
  return {
    ...r,
    decisions: (r.decisions ?? []).map((d) => ({ ...d, cmdline: d.cmdline ?? [] })),
    cgroups: r.cgroups?.map((c) => ({ ...c, processes: (c.processes ?? []).map((m) => ({ ...m, cmdline: m.cmdline ?? [] })) })),
  };
}

/** Builds the engine adapter over the Wails globals. */
export function createWailsApi(w: Window = window): HermesAPI {
  const app = () => {
    const a = w.go?.main?.App;
    if (!a) throw new Error("Wails bindings are not available");
    return a;
  };
  const rt = () => {
    const r = w.runtime;
    if (!r) throw new Error("Wails runtime is not available");
    return r;
  };
  const on = <T>(name: string, cb: (v: T) => void): Unsubscribe =>
    rt().EventsOn(name, (...data: unknown[]) => cb(data[0] as T));

  return {
    Status: async () => normalizeStatus(await app().Status()),
    Restart: (name) => app().Restart(name),
    StartBackend: (name) => app().StartBackend(name),
    StopBackend: (name) => app().StopBackend(name),
    Logs: async (name, after, max) => (await app().Logs(name, after, max)) ?? [],
    // Go decides what may be opened; no fallback to BrowserOpenURL, which
    // would bypass any check the Go side makes.
    OpenURL: (url) => app().OpenURL(url),
    OpenHermes: (name) => app().OpenHermes(name),
    ConnectionDetails: (name) => app().ConnectionDetails(name),
    AddBackend: (b) => app().AddBackend(b),
    RemoveBackend: (name) => app().RemoveBackend(name),
    ClipboardSetText: (text) => rt().ClipboardSetText(text),
    OpenLogFolder: () => app().OpenLogFolder(),
    SaveDiagnosticReport: () => app().SaveDiagnosticReport(),
    OpenReportFolder: () => app().OpenReportFolder(),
    ScanOrphans: async () => normalizeReport(await app().ScanOrphans()),
    ReapOrphans: async (pids) => normalizeReport(await app().ReapOrphans(pids)),
    GetSettings: async () => normalizeSettingsView(await app().GetSettings()),
    // Only the named fields' values travel; Go reads the others as zero and
    // ignores them (settings.Edit), so the partial object is the wire shape.
    SaveSettings: async (e) => normalizeSettingsView(await app().SaveSettings(e as Wire.SettingsEdit)),
    Quit: () => app().Quit(),
    SetWindowVisible: (visible) => app().SetWindowVisible(visible),
    ApplyInstalledUpdate: () => app().ApplyInstalledUpdate(),
    Relaunch: () => app().Relaunch(),
    CheckForUpdate: () => app().CheckForUpdate(),
    ApplyUpdate: () => app().ApplyUpdate(),
    SkipVersion: (version) => app().SkipVersion(version),
    FeedURLError: (raw) => app().FeedURLError(raw),
    onStatus: (cb) => on<Status>("status", (s) => cb(normalizeStatus(s))),
    onLogs: (cb) => on<LogLine[] | null>("logs", (l) => cb(l ?? [])),
    onReap: (cb) => on<ReapReport>("reap", (r) => cb(normalizeReport(r))),
  };
}
