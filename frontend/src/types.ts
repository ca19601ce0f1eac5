// Types the page shares with Go. Their wire shapes are generated from the Go
// structs (src/generated/models.ts, `make gen`) and never written here; this
// file adds only what the page itself owns: the shapes after src/api.ts has
// normalized them, and the engine interface the views are given.

import type * as Wire from "./generated/models";
import type { UpdateAPI } from "./update";

export type { Wire };
export type { BackendKind, BackendSetting, BackendState, EventKind, ReapAction, ReapReason, TreeWarningKind } from "./generated/models";

/**
 * T as the page holds it once src/api.ts has normalized it: every array Go
 * may send as null (a nil slice) is an array, at any depth. A pointer Go may
 * send as null stays nullable.
 */
export type Normalized<T> = T extends readonly (infer E)[]
  ? Normalized<E>[]
  : T extends object
    ? { [K in keyof T]: Normalized<NonNullArray<T[K]>> }
    : T;

/** V without null when V is an array or null; V as it is otherwise. */
type NonNullArray<V> = [Extract<V, readonly unknown[]>] extends [never] ? V : Exclude<V, null>;

export type Status = Normalized<Wire.Status>;
export type InstanceInfo = Normalized<Wire.InstanceInfo>;
export type BackendStatus = Normalized<Wire.BackendStatus>;
export type TreeSample = Normalized<Wire.TreeSample>;
export type TreeProc = Normalized<Wire.TreeProc>;
export type DuplicateGroup = Normalized<Wire.DuplicateGroup>;
export type TreeWarning = Normalized<Wire.TreeWarning>;
export type ReapReport = Normalized<Wire.ReapReport>;
export type ReapDecision = Normalized<Wire.ReapDecision>;
export type LogLine = Normalized<Wire.LogLine>;
export type Settings = Normalized<Wire.Settings>;
export type SettingsView = Normalized<Wire.SettingsView>;
/**
 * What a Settings save sends (Go: settings.Edit): the changed fields by
 * name and only their values; Go reads a field not named as it is saved.
 */
export interface SettingsEdit {
  settings: Partial<Settings>;
  fields: (keyof Wire.Settings)[];
}

export type Unsubscribe = () => void;

/**
 * Everything the page can ask of the engine. src/api.ts implements it over
 * the Wails globals; src/mock.ts and the tests implement it in memory.
 */
export interface HermesAPI extends UpdateAPI {
  Status(): Promise<Status>;
  Restart(name: string): Promise<void>;
  StartBackend(name: string): Promise<void>;
  StopBackend(name: string): Promise<void>;
  Logs(name: string, after: number, max: number): Promise<LogLine[]>;
  OpenURL(url: string): Promise<void>;
  /** Opens a backend's page ("" = the first page-serving backend's) in the
   *  default browser and returns its URL. */
  OpenHermes(name: string): Promise<string>;
  /** What a Hermes client needs to reach a backend, its session token
   *  included: only ever passed straight to ClipboardSetText, never kept in
   *  state, shown or logged. */
  ConnectionDetails(name: string): Promise<string>;
  /** Adds a backend, starts it and saves the list. */
  AddBackend(b: Wire.BackendSetting): Promise<void>;
  /** Stops a backend's whole tree and removes it from the saved list. */
  RemoveBackend(name: string): Promise<void>;
  /** Puts text on the system clipboard; false when it was refused. */
  ClipboardSetText(text: string): Promise<boolean>;
  OpenLogFolder(): Promise<void>;
  /** Saves a diagnostic report (secrets redacted) and answers its path. */
  SaveDiagnosticReport(): Promise<string>;
  /** Opens the folder of the report saved last. */
  OpenReportFolder(): Promise<void>;
  ScanOrphans(): Promise<ReapReport>;
  /** Reaps exactly these PIDs from a confirmed dry run, each only if it
   *  still qualifies when Go looks again. */
  ReapOrphans(pids: number[]): Promise<ReapReport>;
  GetSettings(): Promise<SettingsView>;
  /** Saves the fields the edit names over the settings saved now; the
   *  backend list is never among them (AddBackend and RemoveBackend own it). */
  SaveSettings(edit: SettingsEdit): Promise<SettingsView>;
  Quit(): Promise<void>;
  /** Says whether the window can be seen: hidden, Go sends it no events;
   *  shown again, it sends one fresh status. */
  SetWindowVisible(visible: boolean): Promise<void>;
  /** Hands the app over to the new version a package upgrade installed
   *  (status.instance.restart_to_apply); the backends keep running. On
   *  success this window closes and the new version opens its own. */
  RestartToApply(): Promise<void>;
  /** Restarts Hermes Desktop so that the saved settings apply (Settings'
   *  pending ones): the backends keep running unless one of those settings
   *  needs them to restart. On success this window closes and the new
   *  instance opens its own. */
  RestartApp(): Promise<void>;

  onStatus(cb: (s: Status) => void): Unsubscribe;
  onLogs(cb: (lines: LogLine[]) => void): Unsubscribe;
  onReap(cb: (r: ReapReport) => void): Unsubscribe;
}
