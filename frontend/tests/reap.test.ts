import { describe, expect, it } from "vitest";
import {
  cgroupRows,
  confirmQuestion,
  countDecisions,
  initialReapFlow,
  nothingToReapMessage,
  reapFlow,
  reapSummary,
  sortedDecisions,
  wouldReap,
  type ReapEvent,
  type ReapFlow,
} from "../src/reap";
import { report } from "./fixtures";

const dry = report({
  dry_run: true,
  decisions: [
    { pid: 21, action: "would-reap", reason: "owner-dead", detail: "", cmdline: ["a"] },
    { pid: 22, action: "spared", reason: "ssh-lock", detail: "", cmdline: ["b"] },
    { pid: 20, action: "would-reap", reason: "orphan-no-record", detail: "", cmdline: ["c"] },
  ],
});
const empty = report({ dry_run: true, scanned: 1, elapsed_ms: 3, decisions: [{ pid: 5, action: "spared", reason: "ancestor", detail: "", cmdline: [] }] });

describe("summaries", () => {
  it("summarizes a real reap", () => {
    expect(reapSummary(report())).toBe("Reaped 2, spared 3 — scanned 412 processes in 21 ms");
  });
  it("mentions failures and handles nothing reaped", () => {
    const r = report({
      scanned: 1234,
      elapsed_ms: 1500.4,
      decisions: [{ pid: 1, action: "failed", reason: "fail-closed", detail: "", cmdline: [] }],
    });
    expect(reapSummary(r)).toBe("Reaped nothing, 1 failed — scanned 1,234 processes in 1,500 ms");
  });
  it("summarizes a dry run", () => {
    expect(reapSummary(dry)).toBe("Would reap 2, would spare 1 — scanned 412 processes in 21 ms");
    expect(reapSummary(empty)).toBe("Nothing to reap, would spare 1 — scanned 1 process in 3 ms");
  });
  it("counts and lists", () => {
    expect(countDecisions(dry)).toEqual({ reaped: 0, spared: 1, wouldReap: 2, failed: 0 });
    expect(countDecisions(null)).toEqual({ reaped: 0, spared: 0, wouldReap: 0, failed: 0 });
    expect(wouldReap(dry).map((d) => d.pid)).toEqual([21, 20]);
    expect(sortedDecisions(dry).map((d) => d.pid)).toEqual([20, 21, 22]);
  });
  it("asks and explains in plain words", () => {
    expect(confirmQuestion(dry)).toBe("Reap these 2 processes?");
    expect(confirmQuestion(report({ dry_run: true, decisions: [dry.decisions[0]] }))).toBe("Reap this process?");
    expect(nothingToReapMessage(empty)).toBe("No leftover processes were found among 1 process. 1 candidate was left alone on purpose.");
    expect(nothingToReapMessage(report({ dry_run: true, scanned: 300, decisions: [] }))).toBe("No leftover processes were found among 300 processes.");
  });
});

describe("reapFlow", () => {
  const run = (events: ReapEvent[], from: ReapFlow = initialReapFlow) => events.reduce(reapFlow, from);

  it("goes scan -> confirm -> reaping -> done", () => {
    let s = run([{ type: "scan" }]);
    expect(s.kind).toBe("scanning");
    s = reapFlow(s, { type: "scanned", report: dry });
    expect(s).toEqual({ kind: "confirm", scan: dry });
    s = reapFlow(s, { type: "confirm" });
    expect(s).toEqual({ kind: "reaping", scan: dry });
    const done = report();
    s = reapFlow(s, { type: "reaped", report: done });
    expect(s).toEqual({ kind: "done", result: done });
    expect(reapFlow(s, { type: "cancel" })).toEqual({ kind: "idle" });
  });

  it("says nothing-to-reap when the dry run finds none, and never asks", () => {
    const s = run([{ type: "scan" }, { type: "scanned", report: empty }]);
    expect(s.kind).toBe("nothing");
    expect(reapFlow(s, { type: "confirm" })).toBe(s);
  });

  it("cancel from confirm returns to idle without reaping", () => {
    const s = run([{ type: "scan" }, { type: "scanned", report: dry }, { type: "cancel" }]);
    expect(s).toEqual({ kind: "idle" });
    expect(reapFlow(s, { type: "confirm" })).toEqual({ kind: "idle" });
  });

  it("refuses to confirm without a dry run", () => {
    expect(reapFlow(initialReapFlow, { type: "confirm" })).toBe(initialReapFlow);
    const scanning = run([{ type: "scan" }]);
    expect(reapFlow(scanning, { type: "confirm" })).toBe(scanning);
  });

  it("ignores a second scan while one is running or while reaping", () => {
    const scanning = run([{ type: "scan" }]);
    expect(reapFlow(scanning, { type: "scan" })).toBe(scanning);
    const reaping = run([{ type: "scan" }, { type: "scanned", report: dry }, { type: "confirm" }]);
    expect(reapFlow(reaping, { type: "scan" })).toBe(reaping);
    expect(reapFlow(reaping, { type: "cancel" })).toBe(reaping);
  });

  it("records failures of either step", () => {
    expect(run([{ type: "scan" }, { type: "scanFailed", message: "denied" }])).toEqual({ kind: "error", message: "denied" });
    expect(run([{ type: "scan" }, { type: "scanned", report: dry }, { type: "confirm" }, { type: "reapFailed", message: "boom" }])).toEqual({
      kind: "error",
      message: "boom",
      scan: dry,
    });
  });

  it("ignores stray results", () => {
    expect(reapFlow(initialReapFlow, { type: "scanned", report: dry })).toBe(initialReapFlow);
    expect(reapFlow(initialReapFlow, { type: "reaped", report: report() })).toBe(initialReapFlow);
    const confirm = run([{ type: "scan" }, { type: "scanned", report: dry }]);
    expect(reapFlow(confirm, { type: "reaped", report: report() })).toBe(confirm);
  });

  it("allows a new scan after done, nothing or error", () => {
    for (const s of [
      run([{ type: "scan" }, { type: "scanned", report: empty }]),
      run([{ type: "scan" }, { type: "scanFailed", message: "x" }]),
      run([{ type: "scan" }, { type: "scanned", report: dry }, { type: "confirm" }, { type: "reaped", report: report() }]),
    ]) {
      expect(reapFlow(s, { type: "scan" }).kind).toBe("scanning");
    }
  });
});

describe("cgroupRows", () => {
  it("lists what a reaped backend cgroup held, each process under its verdict", () => {
    const r = report({
      cgroups: [
        {
          cgroup: "/user.slice/hermes-backend-ab",
          action: "reaped",
          reason: "owner-dead",
          detail: "launcher dead",
          members: 2,
          processes: [
            { pid: 31, cmdline: ["node", "mcp.js"] },
            { pid: 30, cmdline: [] },
          ],
        },
        { cgroup: "/x", action: "spared", reason: "fail-closed", detail: "no record", members: 0, processes: [] },
      ],
    });
    expect(cgroupRows(r)).toEqual([
      { pid: 30, action: "reaped", reason: "owner-dead", detail: "launcher dead", cmdline: [] },
      { pid: 31, action: "reaped", reason: "owner-dead", detail: "launcher dead", cmdline: ["node", "mcp.js"] },
    ]);
    expect(cgroupRows(report())).toEqual([]);
  });
});
