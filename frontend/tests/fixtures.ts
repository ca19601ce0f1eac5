// Test fixtures and a fake HermesAPI (no Wails needed).
import { afterEach, vi } from "vitest";
import { App } from "../src/app";
import type { Tab } from "../src/state";
import type {
  BackendSetting,
  BackendStatus,
  HermesAPI,
  LogLine,
  ReapReport,
  Settings,
  SettingsEdit,
  SettingsView,
  Status,
} from "../src/types";
import { applyEdit } from "../src/settings";
import { mockFeedURLError } from "../src/mockupdate";

export function backend(over: Partial<BackendStatus> = {}): BackendStatus {
  return {
    name: "hermes",
    state: "ready",
    // `hermes serve`, as the command says: API only, no page_url.
    kind: "serve",
    pid: 4100,
    port: 43817,
    url: "http://127.0.0.1:43817/",
    restarts: 0,
    command: ["hermes", "serve", "--port", "0"],
    started_at: "2024-05-01T10:00:00Z",
    ready_at: "2024-05-01T10:00:02Z",
    ...over,
  };
}

export function status(backends: BackendStatus[] = [backend()], over: Partial<Status> = {}): Status {
  return {
    instance: { pid: 4000, state_dir: "/tmp/state", nonce: "n1", mode: "gui", version: "1.2.3", started_at: "2024-05-01T09:59:00Z", shim: true },
    backends,
    notices: [],
    ...over,
  };
}

export function line(seq: number, text: string, over: Partial<LogLine> = {}): LogLine {
  const t = new Date(Date.UTC(2024, 4, 1, 10, 0, 0) + seq * 1000).toISOString();
  return { seq, time: t, backend: "hermes", stream: "stdout", text, ...over };
}

export function report(over: Partial<ReapReport> = {}): ReapReport {
  return {
    started_at: "2024-05-01T09:59:00Z",
    dry_run: false,
    scanned: 412,
    elapsed_ms: 21,
    decisions: [
      { pid: 11, action: "reaped", reason: "owner-dead", detail: "Its launcher exited.", cmdline: ["hermes", "serve"] },
      { pid: 12, action: "reaped", reason: "orphan-no-record", detail: "No record.", cmdline: ["mimir", "--db", "x"] },
      { pid: 13, action: "spared", reason: "too-young", detail: "Too new.", cmdline: ["a"] },
      { pid: 14, action: "spared", reason: "ssh-lock", detail: "SSH.", cmdline: ["ssh"] },
      { pid: 15, action: "spared", reason: "ancestor", detail: "Me.", cmdline: ["hermes-desktop"] },
    ],
    ...over,
  };
}

export const defaults: Settings = {
  backend_command: "hermes serve",
  ready_regex: "READY port=(\\d+)",
  health_path: "/api/health",
  grace: "5s",
  min_orphan_age: "3m0s",
  start_at_login: false,
  // As Go sends them: max_duplicate_children and restart_on_fd_pressure are
  // omitted when 0/false.
  sample_interval: "5s",
  nofile_soft_limit: 4096,
  // ssh_config is omitted when empty (ssh's own file).
  disconnect_grace: "30s",
};

export function settingsView(over: Partial<Settings> = {}, notice?: string): SettingsView {
  return { settings: { ...defaults, ...over }, defaults, path: "/home/u/.config/hermes-desktop/config.json", notice, pending: [], pending_restarts_backends: false };
}

export interface Deferred<T> {
  promise: Promise<T>;
  resolve: (v: T) => void;
  reject: (e: unknown) => void;
}

export function deferred<T>(): Deferred<T> {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** A session token as ConnectionDetails carries it: it must never reach the page. */
export const TOKEN = "tok-5ecret-9f8e7d6c5b4a";

/** ConnectionDetails' text for a serve backend, in Go's format. */
export const CONNECTION_DETAILS =
  `URL: http://127.0.0.1:43817/\nToken: ${TOKEN}\nREST header: X-Hermes-Session-Token: ${TOKEN}\n` +
  `WebSocket: ws://127.0.0.1:43817/api/ws?token=${TOKEN}\n`;

/** A fake engine: every method is a vi.fn; events are fired with emit*. */
export function fakeApi(st: Status = status()) {
  const statusCbs: ((s: Status) => void)[] = [];
  const logCbs: ((l: LogLine[]) => void)[] = [];
  const reapCbs: ((r: ReapReport) => void)[] = [];
  // config.json as Go keeps it: Settings saves edit it (settings.Store.Edit),
  // AddBackend and RemoveBackend save the list (App.saveBackends).
  let saved: Settings = settingsView().settings;
  const saveList = (list: BackendSetting[]) => (saved = { ...saved, backends: list, backend_command: "" });
  const api = {
    Status: vi.fn(async () => st),
    Restart: vi.fn(async (_name: string) => {}),
    StartBackend: vi.fn(async (_name: string) => {}),
    StopBackend: vi.fn(async (_name: string) => {}),
    Logs: vi.fn(async (_n: string, _a: number, _m: number): Promise<LogLine[]> => []),
    OpenURL: vi.fn(async (_url: string) => {}),
    OpenHermes: vi.fn(async (_name: string): Promise<string> => "http://127.0.0.1:43817/"),
    ConnectionDetails: vi.fn(async (_name: string): Promise<string> => CONNECTION_DETAILS),
    AddBackend: vi.fn(async (b: BackendSetting) => {
      saveList([...(saved.backends ?? []), b]);
    }),
    RemoveBackend: vi.fn(async (name: string) => {
      saveList((saved.backends ?? []).filter((b) => b.name !== name));
    }),
    ClipboardSetText: vi.fn(async (_text: string): Promise<boolean> => true),
    OpenLogFolder: vi.fn(async () => {}),
    SaveDiagnosticReport: vi.fn(async () => "/home/u/Downloads/hermes-desktop-report-20261203-190000.zip"),
    OpenReportFolder: vi.fn(async () => {}),
    ScanOrphans: vi.fn(async (): Promise<ReapReport> => report({ dry_run: true })),
    ReapOrphans: vi.fn(async (_pids: number[]): Promise<ReapReport> => report()),
    GetSettings: vi.fn(async (): Promise<SettingsView> => ({ ...settingsView(), settings: structuredClone(saved) })),
    SaveSettings: vi.fn(async (e: SettingsEdit): Promise<SettingsView> => {
      saved = applyEdit(saved, e);
      return { ...settingsView(), settings: structuredClone(saved) };
    }),
    Quit: vi.fn(async () => {}),
    SetWindowVisible: vi.fn(async (_visible: boolean) => {}),
    ApplyInstalledUpdate: vi.fn(async () => {}),
    Relaunch: vi.fn(async () => {}),
    CheckForUpdate: vi.fn(async () => ({ current: "1.2.3", latest: "1.3.0", available: true, notes: "", reason: "" })),
    ApplyUpdate: vi.fn(async () => {}),
    SkipVersion: vi.fn(async (_version: string) => {}),
    FeedURLError: vi.fn(mockFeedURLError),
    onStatus: vi.fn((cb: (s: Status) => void) => {
      statusCbs.push(cb);
      return () => statusCbs.splice(statusCbs.indexOf(cb), 1);
    }),
    onLogs: vi.fn((cb: (l: LogLine[]) => void) => {
      logCbs.push(cb);
      return () => logCbs.splice(logCbs.indexOf(cb), 1);
    }),
    onReap: vi.fn((cb: (r: ReapReport) => void) => {
      reapCbs.push(cb);
      return () => reapCbs.splice(reapCbs.indexOf(cb), 1);
    }),
  } satisfies HermesAPI;
  return {
    api,
    emitStatus: (s: Status) => statusCbs.forEach((c) => c(s)),
    emitLogs: (l: LogLine[]) => logCbs.forEach((c) => c(l)),
    emitReap: (r: ReapReport) => reapCbs.forEach((c) => c(r)),
    listeners: () => statusCbs.length + logCbs.length + reapCbs.length,
    /** What config.json holds now. */
    saved: () => saved,
  };
}

/** Lets pending promise callbacks run. */
export async function flush(times = 5): Promise<void> {
  for (let i = 0; i < times; i++) await new Promise((r) => setTimeout(r, 0));
}

/** NOW is the clock every App a test mounts reads. */
export const NOW = Date.parse("2024-05-01T10:03:14Z");

/**
 * mounter gives a test file mount(), which starts an App on a fresh root
 * (on a tab, "backends" by default), and removes every App it started after
 * each test; track() registers an App a test made itself.
 */
export function mounter() {
  let mounted: { app: App; root: HTMLElement }[] = [];
  afterEach(() => {
    for (const m of mounted) {
      m.app.destroy();
      m.root.remove();
    }
    mounted = [];
  });
  const track = (app: App, root: HTMLElement) => {
    mounted.push({ app, root });
  };
  const mount = async (api: HermesAPI, tab: Tab = "backends") => {
    const root = document.createElement("div");
    document.body.appendChild(root);
    const app = new App(api, root, { now: () => NOW, schedule: (fn) => fn(), timers: false, initialTab: tab });
    track(app, root);
    await app.start();
    await flush();
    return { app, root };
  };
  return { mount, track };
}
