import { describe, expect, it } from "vitest";
import { buildTree, duplicatePids, flattenTree, type TreeNode } from "../src/tree";
import type { TreeProc } from "../src/types";

const p = (pid: number, ppid: number, started = "2024-05-01T10:00:00Z"): TreeProc => ({
  pid,
  ppid,
  argv: [`p${pid}`],
  rss_bytes: 1024,
  fds: 3,
  started,
});

const shape = (nodes: TreeNode[]): unknown => nodes.map((n) => (n.children.length ? { [n.proc.pid]: shape(n.children) } : n.proc.pid));
const allPids = (nodes: TreeNode[]): number[] => nodes.flatMap((n) => [n.proc.pid, ...allPids(n.children)]);

describe("buildTree", () => {
  it("nests children under parents", () => {
    const t = buildTree([p(10, 1), p(11, 10), p(12, 10), p(13, 11)]);
    expect(shape(t)).toEqual([{ 10: [{ 11: [13] }, 12] }]);
  });

  it("orders siblings by start time, then pid", () => {
    const t = buildTree([p(10, 1), p(30, 10, "2024-05-01T10:00:05Z"), p(20, 10, "2024-05-01T10:00:09Z"), p(25, 10, "2024-05-01T10:00:05Z")]);
    expect(shape(t)).toEqual([{ 10: [25, 30, 20] }]);
  });

  it("makes processes whose parent is missing into roots", () => {
    const t = buildTree([p(10, 1), p(11, 10), p(50, 49), p(51, 50)]);
    expect(shape(t)).toEqual([{ 10: [11] }, { 50: [51] }]);
  });

  it("survives a two-process cycle and keeps both", () => {
    const t = buildTree([p(7, 8), p(8, 7)]);
    expect(allPids(t).sort()).toEqual([7, 8]);
    expect(shape(t)).toEqual([{ 7: [8] }]);
  });

  it("cuts a cycle at its lowest pid even when something hangs off it", () => {
    // 5 -> 9 -> 6 -> 5 is a cycle; 2 hangs off 9.
    const t = buildTree([p(9, 5), p(6, 9), p(5, 6), p(2, 9)]);
    expect(allPids(t).sort((a, b) => a - b)).toEqual([2, 5, 6, 9]);
    expect(t).toHaveLength(1);
    expect(t[0].proc.pid).toBe(5);
    expect(shape(t)).toEqual([{ 5: [{ 9: [2, 6] }] }]);
  });

  it("treats a process that is its own parent as a root", () => {
    expect(shape(buildTree([p(3, 3), p(4, 3)]))).toEqual([{ 3: [4] }]);
  });

  it("keeps the first of duplicate pids and handles empty input", () => {
    const t = buildTree([p(10, 1), { ...p(10, 1), argv: ["other"] }, p(11, 10)]);
    expect(allPids(t)).toEqual([10, 11]);
    expect(t[0].proc.argv).toEqual(["p10"]);
    expect(buildTree([])).toEqual([]);
    expect(buildTree(null)).toEqual([]);
  });

  it("handles a long chain without losing anything", () => {
    const procs = Array.from({ length: 500 }, (_, i) => p(i + 2, i + 1));
    const rows = flattenTree(buildTree(procs));
    expect(rows).toHaveLength(500);
    expect(rows[499].depth).toBe(499);
  });
});

describe("flattenTree", () => {
  it("gives depth, last-child and orphan flags, backend root first", () => {
    const t = buildTree([p(99, 98, "2024-05-01T09:00:00Z"), p(10, 1), p(11, 10), p(12, 10)]);
    const rows = flattenTree(t, 10);
    expect(rows.map((r) => [r.proc.pid, r.depth, r.last, r.orphan])).toEqual([
      [10, 0, false, false],
      [11, 1, false, false],
      [12, 1, true, false],
      [99, 0, true, true],
    ]);
  });

  it("without a root pid, only later roots count as orphans", () => {
    const rows = flattenTree(buildTree([p(10, 1), p(50, 49, "2024-05-01T11:00:00Z")]));
    expect(rows.map((r) => r.orphan)).toEqual([false, true]);
  });
});

describe("duplicatePids", () => {
  it("maps each pid to its group", () => {
    const g = { argv: ["mimir", "--db", "x"], count: 3, pids: [5, 6, 7] };
    const m = duplicatePids([g]);
    expect(m.get(6)).toBe(g);
    expect(m.has(8)).toBe(false);
    expect(duplicatePids(null).size).toBe(0);
  });
});
