// Types the page shares with Go. Their wire shapes are generated from the Go
// structs (src/generated/models.ts, `make gen`) and never written here; this
// file adds only what the page itself owns: the shapes after src/api.ts has
// normalized them, and the engine interface the views are given.

import type * as Wire from "./generated/models";

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

/** A bound method as the page calls it: its answer normalized (src/api.ts). */
type Normalizing<F> = F extends (...args: infer A) => Promise<infer R> ? (...args: A) => Promise<Normalized<NonNullArray<R>>> : never;

/** The methods Go binds (Wire.BoundApp, generated from the Go App) as the
 *  page calls them; their documentation is Go's. */
export type BoundAPI = { [K in keyof Wire.BoundApp]: Normalizing<Wire.BoundApp[K]> };

/**
 * Everything the page can ask of the engine: the bound methods, and the
 * Wails runtime's clipboard and events. src/api.ts implements it over the
 * Wails globals; src/mock.ts and the tests implement it in memory.
 */
export interface HermesAPI extends Omit<BoundAPI, "SaveSettings"> {
  /** Sends only the named fields' values (SettingsEdit): Go reads a field
   *  not named as it is saved. */
  SaveSettings(edit: SettingsEdit): Promise<SettingsView>;
  /** Puts text on the system clipboard; false when it was refused. */
  ClipboardSetText(text: string): Promise<boolean>;
  onStatus(cb: (s: Status) => void): Unsubscribe;
  onLogs(cb: (lines: LogLine[]) => void): Unsubscribe;
  onReap(cb: (r: ReapReport) => void): Unsubscribe;
}

/** What the update banner asks of the engine. */
export type UpdateAPI = Pick<HermesAPI, "CheckForUpdate" | "ApplyUpdate" | "SkipVersion">;
