import { describe, expect, it } from "vitest";
import { actionLabel, actionTone, KIND_ORDER, kindHelp, kindLabel, reasonLabel, sortWarnings, stateLabel, stateTone, warningTitle } from "../src/reasons";
import type { ReapReason } from "../src/types";

const WORDS: ReapReason[] = [
  "owned", "owner-dead", "orphan-no-record", "too-young", "not-orphan", "ssh-lock", "ssh-token-file", "gateway-pidfile",
  "service-managed", "excluded-env", "other-user", "ancestor", "fixed-port", "not-loopback",
  "identity-mismatch", "fail-closed",
];

describe("reasonLabel", () => {
  it("has a plain label for every reason word the reaper uses", () => {
    for (const w of WORDS) {
      const label = reasonLabel(w);
      expect(label, w).not.toBe(w);
      expect(label.length, w).toBeGreaterThan(3);
      expect(label, w).not.toMatch(/-/);
    }
    expect(new Set(WORDS.map(reasonLabel)).size).toBe(WORDS.length);
  });
  it("gives specific wording", () => {
    expect(reasonLabel("owner-dead")).toBe("Its launcher has exited");
    expect(reasonLabel("too-young")).toBe("Too new to judge");
    expect(reasonLabel("fail-closed")).toBe("Could not verify; left alone");
  });
  it("shows unknown words as they are, including prototype names", () => {
    expect(reasonLabel("brand-new-reason")).toBe("brand-new-reason");
    expect(reasonLabel("constructor")).toBe("constructor");
    expect(reasonLabel("")).toBe("");
  });
});

describe("action and state labels", () => {
  it("labels actions", () => {
    expect(actionLabel("would-reap")).toBe("Would reap");
    expect(actionLabel("reaped")).toBe("Reaped");
    expect(actionLabel("mystery")).toBe("mystery");
    expect(actionTone("failed")).toBe("bad");
    expect(actionTone("spared")).toBe("idle");
  });
  it("colours states", () => {
    expect(stateTone("ready")).toBe("ok");
    expect(stateTone("starting")).toBe("busy");
    expect(stateTone("restarting")).toBe("busy");
    expect(stateTone("failed")).toBe("bad");
    expect(stateTone("stopped")).toBe("idle");
    expect(stateLabel("restarting")).toBe("Restarting");
  });
  it("calls an attached backend Attached, in a neutral tone", () => {
    expect(stateLabel("external")).toBe("Attached");
    expect(stateTone("external")).toBe("info");
  });
});

describe("backend kinds", () => {
  it("names every kind in the order the form offers them", () => {
    expect(KIND_ORDER.map(kindLabel)).toEqual(["Dashboard", "API server", "Custom"]);
    expect(KIND_ORDER.map(kindHelp)).toEqual(["Hermes' web UI with chat", "hermes serve, for Hermes clients", "any command serving HTTP on 127.0.0.1"]);
  });
  it("shows unknown kinds as they are", () => {
    expect(kindLabel("grpc")).toBe("grpc");
    expect(kindLabel("constructor")).toBe("constructor");
    expect(kindHelp("grpc")).toBe("");
  });
});

describe("tree warnings", () => {
  it("titles every kind the sampler sends, and nothing else", () => {
    expect(warningTitle("fd-pressure")).toBe("Running out of open files");
    expect(warningTitle("duplicates")).toBe("Duplicate helpers");
    expect(warningTitle("rss-growth")).toBe("Memory keeps growing");
    expect(warningTitle("something-new")).toBe("");
    expect(warningTitle("constructor")).toBe("");
  });
  it("sorts the most urgent first and keeps the order within a kind", () => {
    const ws = [
      { kind: "duplicates", id: 1 },
      { kind: "new-kind", id: 2 },
      { kind: "fd-pressure", id: 3 },
      { kind: "rss-growth", id: 4 },
      { kind: "fd-pressure", id: 5 },
    ];
    expect(sortWarnings(ws).map((w) => w.id)).toEqual([3, 5, 4, 1, 2]);
    expect(ws.map((w) => w.id)).toEqual([1, 2, 3, 4, 5]);
  });
});
