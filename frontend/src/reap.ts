// Reap report summaries and the scan -> confirm -> reap flow.

import { formatCount } from "./format";
import type { ReapDecision, ReapReport, Wire } from "./types";

export interface ReapCounts {
  reaped: number;
  spared: number;
  wouldReap: number;
  failed: number;
}

export function countDecisions(r: ReapReport | null | undefined): ReapCounts {
  const c: ReapCounts = { reaped: 0, spared: 0, wouldReap: 0, failed: 0 };
  for (const d of r?.decisions ?? []) {
    if (d.action === "reaped") c.reaped++;
    else if (d.action === "spared") c.spared++;
    else if (d.action === "would-reap") c.wouldReap++;
    else if (d.action === "failed") c.failed++;
  }
  return c;
}

export function wouldReap(r: ReapReport | null | undefined): ReapDecision[] {
  return (r?.decisions ?? []).filter((d) => d.action === "would-reap");
}

/** "Reaped 2, spared 3 — scanned 412 processes in 21 ms". */
export function reapSummary(r: ReapReport): string {
  const c = countDecisions(r);
  const parts: string[] = [];
  if (r.dry_run) {
    parts.push(c.wouldReap > 0 ? `Would reap ${c.wouldReap}` : "Nothing to reap");
    if (c.spared > 0) parts.push(`would spare ${c.spared}`);
  } else {
    parts.push(c.reaped > 0 ? `Reaped ${c.reaped}` : "Reaped nothing");
    if (c.spared > 0) parts.push(`spared ${c.spared}`);
  }
  if (c.failed > 0) parts.push(`${c.failed} failed`);
  const n = r.scanned;
  const ms = Math.max(0, Math.round(r.elapsed_ms));
  return `${parts.join(", ")} — scanned ${formatCount(n)} ${n === 1 ? "process" : "processes"} in ${formatCount(ms)} ms`;
}

/** Decisions in display order: acted-on first, then by pid. */
/**
 * The processes of the report's backend cgroups as rows of the decisions
 * table: each member under its cgroup's verdict and detail
 * (a reaped cgroup's members are what the reap killed).
 */
export function cgroupRows(r: ReapReport | null | undefined): ReapDecision[] {
  const rows: ReapDecision[] = [];
  for (const c of r?.cgroups ?? []) {
    for (const m of c.processes) {
      // The table's heading says they are in backend cgroups; the cgroup's
      // path (a 32-digit name) tells a person nothing more.
      rows.push({ pid: m.pid, action: c.action, reason: c.reason, detail: c.detail, cmdline: m.cmdline });
    }
  }
  return rows.sort((a, b) => a.pid - b.pid);
}

export function sortedDecisions(r: ReapReport | null | undefined): ReapDecision[] {
  const rank: Record<string, number> = { failed: 0, reaped: 1, "would-reap": 1, spared: 2 };
  return [...(r?.decisions ?? [])].sort((a, b) => (rank[a.action] ?? 3) - (rank[b.action] ?? 3) || a.pid - b.pid);
}

// ---- The dry-run -> confirm -> reap flow ----------------------------------

export type ReapFlow =
  | { kind: "idle" }
  | { kind: "scanning" }
  /** The dry run found processes; waiting for the user to confirm. */
  | { kind: "confirm"; scan: ReapReport }
  /** The dry run found nothing to reap. */
  | { kind: "nothing"; scan: ReapReport }
  | { kind: "reaping"; scan: ReapReport }
  | { kind: "done"; result: ReapReport }
  | { kind: "error"; message: string; scan?: ReapReport };

export type ReapEvent =
  | { type: "scan" }
  | { type: "scanned"; report: ReapReport }
  | { type: "scanFailed"; message: string }
  | { type: "confirm" }
  | { type: "cancel" }
  | { type: "reaped"; report: ReapReport }
  | { type: "reapFailed"; message: string };

export const initialReapFlow: ReapFlow = { kind: "idle" };

/** The flow's transitions; an event that does not apply leaves the state alone. */
export function reapFlow(s: ReapFlow, e: ReapEvent): ReapFlow {
  switch (e.type) {
    case "scan":
      // A new scan is allowed from anywhere except while one is in flight.
      return s.kind === "scanning" || s.kind === "reaping" ? s : { kind: "scanning" };
    case "scanned":
      if (s.kind !== "scanning") return s;
      return wouldReap(e.report).length > 0 ? { kind: "confirm", scan: e.report } : { kind: "nothing", scan: e.report };
    case "scanFailed":
      return s.kind === "scanning" ? { kind: "error", message: e.message } : s;
    case "confirm":
      return s.kind === "confirm" ? { kind: "reaping", scan: s.scan } : s;
    case "cancel":
      return s.kind === "confirm" || s.kind === "nothing" || s.kind === "error" || s.kind === "done"
        ? { kind: "idle" }
        : s;
    case "reaped":
      return s.kind === "reaping" ? { kind: "done", result: e.report } : s;
    case "reapFailed":
      return s.kind === "reaping" ? { kind: "error", message: e.message, scan: s.scan } : s;
  }
}

/** What to say when a dry run found nothing to reap. */
export function nothingToReapMessage(r: ReapReport): string {
  const c = countDecisions(r);
  const n = r.scanned;
  let msg = `No leftover processes were found among ${formatCount(n)} ${n === 1 ? "process" : "processes"}.`;
  if (c.spared > 0) msg += ` ${c.spared === 1 ? "1 candidate was" : `${c.spared} candidates were`} left alone on purpose.`;
  return msg;
}

/** "Reap these 2 processes?" */
export function confirmQuestion(scan: ReapReport): string {
  const n = wouldReap(scan).length;
  return n === 1 ? "Reap this process?" : `Reap these ${n} processes?`;
}

/**
 * The remote reaps' decisions (one reap before each start on a host), by
 * host, the latest first within a host.
 */
export function remoteRows(r: ReapReport | null | undefined): Wire.ReapRemoteDecision[] {
  return [...(r?.remote ?? [])].sort((a, b) => a.host.localeCompare(b.host) || b.at.localeCompare(a.at));
}
