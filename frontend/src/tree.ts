// Builds a process tree from flat pid/ppid samples.

import type { DuplicateGroup, TreeProc } from "./types";

export interface TreeNode {
  proc: TreeProc;
  children: TreeNode[];
}

export interface TreeRow {
  proc: TreeProc;
  depth: number;
  /** True when the row's parent is missing from the sample (shown at top level). */
  orphan: boolean;
  /** True for the last child of its parent, for drawing tree guides. */
  last: boolean;
}

function byStartThenPid(a: TreeProc, b: TreeProc): number {
  const ta = Date.parse(a.started);
  const tb = Date.parse(b.started);
  if (Number.isFinite(ta) && Number.isFinite(tb) && ta !== tb) return ta - tb;
  return a.pid - b.pid;
}

/**
 * Arranges processes into trees. A process whose parent is not in the list
 * becomes a root (the sample's own root, or an orphan whose parent already
 * exited). Duplicate pids keep their first entry. Parent links that form a
 * cycle are broken at the lowest pid of the cycle, so every process appears
 * exactly once and building always terminates.
 */
export function buildTree(processes: readonly TreeProc[] | null | undefined): TreeNode[] {
  const procs: TreeProc[] = [];
  const byPid = new Map<number, TreeProc>();
  for (const p of processes ?? []) {
    if (byPid.has(p.pid)) continue;
    byPid.set(p.pid, p);
    procs.push(p);
  }
  const kids = new Map<number, TreeProc[]>();
  for (const p of procs) {
    if (p.ppid === p.pid || !byPid.has(p.ppid)) continue;
    const list = kids.get(p.ppid) ?? [];
    list.push(p);
    kids.set(p.ppid, list);
  }
  for (const list of kids.values()) list.sort(byStartThenPid);

  const seen = new Set<number>();
  const grow = (p: TreeProc): TreeNode => {
    seen.add(p.pid);
    const node: TreeNode = { proc: p, children: [] };
    // `seen` stops any revisit, so recursion depth is bounded by the count.
    for (const c of kids.get(p.pid) ?? []) {
      if (!seen.has(c.pid)) node.children.push(grow(c));
    }
    return node;
  };

  const roots: TreeNode[] = [];
  const rootProcs = procs.filter((p) => p.ppid === p.pid || !byPid.has(p.ppid)).sort(byStartThenPid);
  for (const p of rootProcs) if (!seen.has(p.pid)) roots.push(grow(p));

  // Whatever is left hangs off a cycle (a -> b -> a): no member has a
  // missing parent, and every unseen process's parent is unseen too. Walk up
  // to the cycle and cut it at its lowest pid.
  for (const p of procs) {
    if (seen.has(p.pid)) continue;
    const path = new Set<number>();
    let cur = p;
    while (!path.has(cur.pid)) {
      path.add(cur.pid);
      cur = byPid.get(cur.ppid)!;
    }
    let low = cur;
    for (let x = byPid.get(cur.ppid)!; x.pid !== cur.pid; x = byPid.get(x.ppid)!) {
      if (x.pid < low.pid) low = x;
    }
    roots.push(grow(low));
  }
  return roots;
}

/** Depth-first rows for rendering an indented tree. */
export function flattenTree(roots: readonly TreeNode[], rootPid?: number): TreeRow[] {
  const rows: TreeRow[] = [];
  // The backend's own process first, then anything whose parent is gone.
  if (rootPid !== undefined) {
    const i = roots.findIndex((r) => r.proc.pid === rootPid);
    if (i > 0) roots = [roots[i], ...roots.slice(0, i), ...roots.slice(i + 1)];
  }
  const walk = (n: TreeNode, depth: number, last: boolean, orphan: boolean) => {
    rows.push({ proc: n.proc, depth, last, orphan });
    n.children.forEach((c, i) => walk(c, depth + 1, i === n.children.length - 1, false));
  };
  roots.forEach((r, i) => {
    const orphan = rootPid !== undefined ? r.proc.pid !== rootPid : i > 0;
    walk(r, 0, i === roots.length - 1, orphan);
  });
  return rows;
}

/** Map from pid to the duplicate group it belongs to. */
export function duplicatePids(groups: readonly DuplicateGroup[] | null | undefined): Map<number, DuplicateGroup> {
  const m = new Map<number, DuplicateGroup>();
  for (const g of groups ?? []) for (const pid of g.pids ?? []) m.set(pid, g);
  return m;
}
