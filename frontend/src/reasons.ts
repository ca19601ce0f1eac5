// Plain-English labels for the reaper's reason and action words.

import type { BackendKind, BackendState, ReapAction, ReapReason, TreeWarningKind } from "./types";

// Keyed by the generated unions: a word Go adds or drops fails tsc here.
const REASONS: Record<ReapReason, string> = {
  owned: "Belongs to a running app",
  "owner-dead": "Its launcher has exited",
  "orphan-no-record": "Left behind, no record",
  "too-young": "Too new to judge",
  "not-orphan": "Parent still running",
  "ssh-lock": "Holds an SSH lock",
  "ssh-token-file": "Runs for an SSH session",
  "gateway-pidfile": "Gateway with a pidfile",
  "service-managed": "Managed by a service",
  "excluded-env": "Excluded by environment",
  "other-user": "Another user's process",
  ancestor: "Ancestor of this app",
  "fixed-port": "Listens on a fixed port",
  "not-loopback": "Not on loopback",
  "identity-mismatch": "Process identity changed",
  "fail-closed": "Could not verify; left alone",
};

/** A short label for a reason word; unknown words are shown as they are. */
export function reasonLabel(reason: string): string {
  return Object.prototype.hasOwnProperty.call(REASONS, reason) ? REASONS[reason as ReapReason] : reason;
}

const ACTIONS: Record<ReapAction, string> = {
  reaped: "Reaped",
  spared: "Spared",
  "would-reap": "Would reap",
  failed: "Failed",
  // A remote reap found nothing of a dead session running and removed its files.
  cleaned: "Cleaned up",
};

export function actionLabel(action: string): string {
  return Object.prototype.hasOwnProperty.call(ACTIONS, action) ? ACTIONS[action as ReapAction] : action;
}

const STATES: Record<BackendState, string> = {
  starting: "Starting",
  ready: "Ready",
  restarting: "Restarting",
  failed: "Failed",
  stopped: "Stopped",
  // Someone else's Hermes, which this app uses and never stops.
  external: "Attached",
};

export function stateLabel(state: string): string {
  return Object.prototype.hasOwnProperty.call(STATES, state) ? STATES[state as BackendState] : state;
}

/** The colour family of a state badge. */
export function stateTone(state: string): "ok" | "busy" | "bad" | "idle" | "info" {
  switch (state) {
    case "ready":
      return "ok";
    case "external":
      return "info";
    case "starting":
    case "restarting":
      return "busy";
    case "failed":
      return "bad";
    default:
      return "idle";
  }
}

export function actionTone(action: string): "ok" | "busy" | "bad" | "idle" {
  switch (action) {
    case "reaped":
      return "ok";
    case "would-reap":
      return "busy";
    case "failed":
      return "bad";
    default:
      return "idle";
  }
}

const KINDS: Record<BackendKind, { label: string; help: string }> = {
  dashboard: { label: "Dashboard", help: "Hermes' web UI with chat" },
  serve: { label: "API server", help: "hermes serve, for Hermes clients" },
  custom: { label: "Custom", help: "any command serving HTTP on 127.0.0.1" },
};

/** The kinds in the order the Add backend form offers them. */
export const KIND_ORDER: BackendKind[] = ["dashboard", "serve", "custom"];

/** A short name for a backend kind ("Dashboard"); unknown kinds as they are. */
export function kindLabel(kind: string): string {
  return Object.prototype.hasOwnProperty.call(KINDS, kind) ? KINDS[kind as BackendKind].label : kind;
}

/** One line on what a backend kind is ("" for unknown kinds). */
export function kindHelp(kind: string): string {
  return Object.prototype.hasOwnProperty.call(KINDS, kind) ? KINDS[kind as BackendKind].help : "";
}

const WARNINGS: Record<TreeWarningKind, { title: string; rank: number }> = {
  "fd-pressure": { title: "Running out of open files", rank: 0 },
  "rss-growth": { title: "Memory keeps growing", rank: 1 },
  duplicates: { title: "Duplicate helpers", rank: 2 },
};

/** A short heading for a process-tree warning kind ("" for unknown kinds). */
export function warningTitle(kind: string): string {
  return Object.prototype.hasOwnProperty.call(WARNINGS, kind) ? WARNINGS[kind as TreeWarningKind].title : "";
}

/** Warnings most urgent first (open files, then memory, then duplicates); stable otherwise. */
export function sortWarnings<T extends { kind: string }>(ws: readonly T[]): T[] {
  const rank = (k: string) => (Object.prototype.hasOwnProperty.call(WARNINGS, k) ? WARNINGS[k as TreeWarningKind].rank : 3);
  return ws
    .map((w, i) => ({ w, i }))
    .sort((a, b) => rank(a.w.kind) - rank(b.w.kind) || a.i - b.i)
    .map((x) => x.w);
}
