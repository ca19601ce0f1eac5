// A capped, de-duplicated, time-ordered buffer of log lines from all backends.

import type { LogLine } from "./types";

export const DEFAULT_LOG_CAP = 2000;

interface Entry {
  line: LogLine;
  key: string;
  t: number;
}

/**
 * Identity of a line. seq counts per backend; time is part of the key so a
 * backend whose counter starts again (a new log after a reset) is not taken
 * for lines already seen, while the same line delivered twice (by the
 * initial Logs() call and by a "logs" event) is.
 */
export function lineKey(l: LogLine): string {
  return `${l.backend}\u0000${l.seq}\u0000${l.time}`;
}

/** Time order; within one millisecond, by backend then seq (a total order). */
function compare(a: Entry, b: Entry): number {
  const at = Number.isFinite(a.t) ? a.t : 0;
  const bt = Number.isFinite(b.t) ? b.t : 0;
  if (at !== bt) return at - bt;
  if (a.line.backend !== b.line.backend) return a.line.backend < b.line.backend ? -1 : 1;
  return a.line.seq - b.line.seq;
}

export class LogBuffer {
  private entries: Entry[] = [];
  private keys = new Set<string>();
  /** Bumped on every change, so views can tell whether to re-render. */
  version = 0;

  constructor(readonly cap: number = DEFAULT_LOG_CAP) {}

  get size(): number {
    return this.entries.length;
  }

  /** Adds lines, skipping ones already held; returns how many were new. */
  add(lines: readonly LogLine[] | null | undefined): number {
    if (!lines || lines.length === 0) return 0;
    let added = 0;
    let ordered = true;
    for (const line of lines) {
      const key = lineKey(line);
      if (this.keys.has(key)) continue;
      const e: Entry = { line, key, t: Date.parse(line.time) };
      const last = this.entries[this.entries.length - 1];
      if (last && compare(last, e) > 0) ordered = false;
      this.entries.push(e);
      this.keys.add(key);
      added++;
    }
    if (added === 0) return 0;
    if (!ordered) this.entries.sort(compare); // stable: equal keys keep arrival order
    if (this.entries.length > this.cap) {
      const drop = this.entries.splice(0, this.entries.length - this.cap);
      for (const e of drop) this.keys.delete(e.key);
    }
    this.version++;
    return added;
  }

  /** The highest seq held for a backend (0 when none). */
  lastSeq(backend: string): number {
    let max = 0;
    for (const e of this.entries) if (e.line.backend === backend && e.line.seq > max) max = e.line.seq;
    return max;
  }

  lines(): LogLine[] {
    return this.entries.map((e) => e.line);
  }

  clear(): void {
    this.entries = [];
    this.keys.clear();
    this.version++;
  }
}

export interface LogFilter {
  /** Case-insensitive substring; "" matches everything. */
  text: string;
  /** Backend name; "" means all. */
  backend: string;
}

/** Lines matching a filter, in order. */
export function filterLines(lines: readonly LogLine[], f: LogFilter): LogLine[] {
  const needle = f.text.trim().toLowerCase();
  return lines.filter(
    (l) => (f.backend === "" || l.backend === f.backend) && (needle === "" || l.text.toLowerCase().includes(needle)),
  );
}
