import { describe, expect, it } from "vitest";
import { currentReport, instanceSummary, tabFromHash } from "../src/state";
import { backend, report, status } from "./fixtures";

describe("tabFromHash", () => {
  it("picks the tab a hash names", () => {
    expect(tabFromHash("#logs")).toBe("logs");
    expect(tabFromHash("#/reap")).toBe("reap");
    expect(tabFromHash("#settings?x=1")).toBe("settings");
    expect(tabFromHash("#tree")).toBe("tree");
  });
  it("falls back to Backends", () => {
    expect(tabFromHash("")).toBe("backends");
    expect(tabFromHash("#nope")).toBe("backends");
  });
});

describe("instanceSummary", () => {
  it("reads one glance", () => {
    expect(instanceSummary(null)).toEqual({ text: "Connecting…", tone: "idle" });
    expect(instanceSummary(status([]))).toEqual({ text: "No backends configured", tone: "idle" });
    expect(instanceSummary(status([backend()]))).toEqual({ text: "1 backend ready", tone: "ok" });
    expect(instanceSummary(status([backend(), backend({ name: "b" })]))).toEqual({ text: "2 backends ready", tone: "ok" });
    expect(instanceSummary(status([backend({ state: "starting" })]))).toEqual({ text: "Backend starting…", tone: "busy" });
    expect(instanceSummary(status([backend({ state: "restarting" })]))).toEqual({ text: "Backend restarting…", tone: "busy" });
    expect(instanceSummary(status([backend(), backend({ name: "b", state: "starting" })]))).toEqual({ text: "1 of 2 ready, 1 starting…", tone: "busy" });
    expect(instanceSummary(status([backend(), backend({ name: "b", state: "failed" })]))).toEqual({ text: "1 of 2 backends failed", tone: "bad" });
    expect(instanceSummary(status([backend({ state: "failed" })]))).toEqual({ text: "Backend failed", tone: "bad" });
    expect(instanceSummary(status([backend({ state: "stopped" })]))).toEqual({ text: "Backend stopped", tone: "idle" });
    expect(instanceSummary(status([backend(), backend({ name: "b", state: "stopped" })]))).toEqual({ text: "1 of 2 backends ready", tone: "idle" });
  });
  it("counts an attached backend as ready: it serves", () => {
    expect(instanceSummary(status([backend({ state: "external" })]))).toEqual({ text: "1 backend ready", tone: "ok" });
    expect(instanceSummary(status([backend({ state: "external" }), backend({ name: "b", state: "starting" })]))).toEqual({ text: "1 of 2 ready, 1 starting…", tone: "busy" });
  });
});

describe("currentReport", () => {
  it("prefers the latest reap event over the boot report", () => {
    const boot = report();
    const later = report({ started_at: "2024-05-01T12:00:00Z" });
    expect(currentReport({ lastReap: null, status: status([], { boot_reap: boot }) })).toBe(boot);
    expect(currentReport({ lastReap: later, status: status([], { boot_reap: boot }) })).toBe(later);
    expect(currentReport({ lastReap: null, status: null })).toBeNull();
  });
});
