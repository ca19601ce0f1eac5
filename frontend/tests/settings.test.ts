import { describe, expect, it } from "vitest";
import {
  captureGroups,
  commandError,
  customizedKeys,
  diffSettings,
  hasErrors,
  normalizeSettings,
  parseGoDuration,
  resetToDefaults,
  validateSettings,
} from "../src/settings";
import { defaults } from "./fixtures";

describe("parseGoDuration", () => {
  it.each([
    ["5s", 5000],
    ["3m0s", 180_000],
    ["1h30m", 5_400_000],
    ["1.5s", 1500],
    ["250ms", 250],
    ["0", 0],
    ["-2s", -2000],
    ["+1m", 60_000],
    ["1500us", 1.5],
    ["2µs", 0.002],
    [".5s", 500],
  ])("%s -> %d ms", (s, ms) => expect(parseGoDuration(s)).toBeCloseTo(ms, 6));

  it.each(["", "5", "s", "5 s", "5sec", "1d", "abc", "5s!", "-", "1h 30m"])("rejects %j", (s) => {
    expect(parseGoDuration(s)).toBeNull();
  });
});

describe("commandError", () => {
  it("accepts well-quoted commands", () => {
    expect(commandError(`hermes serve --title 'Hermes (x)' --note "say \\"hi\\"" a\\ b`)).toBeNull();
    expect(commandError("")).toBeNull();
  });
  it("finds unterminated quotes and trailing backslashes", () => {
    expect(commandError("hermes 'oops")).toBe("Unterminated ' quote");
    expect(commandError('hermes "oops \\"')).toBe('Unterminated " quote');
    expect(commandError("hermes \\")).toBe("The command ends with a backslash");
  });
});

describe("captureGroups", () => {
  it("counts groups, translating Go-only syntax", () => {
    expect(captureGroups("READY port=(\\d+)")).toBe(1);
    expect(captureGroups("HERMES_(?:BACKEND|DASHBOARD)_READY port=(\\d+)")).toBe(1);
    expect(captureGroups("(?i)ready port=(?P<port>\\d+)")).toBe(1);
    expect(captureGroups("ready")).toBe(0);
    expect(captureGroups("(unclosed")).toBeNull();
  });
});

describe("validateSettings", () => {
  it("accepts the defaults and all-empty (use defaults)", () => {
    expect(validateSettings(defaults)).toEqual({});
    expect(validateSettings({ ...defaults, backend_command: "", ready_regex: "", health_path: "", grace: "", min_orphan_age: "" })).toEqual({});
  });
  it("flags each bad field", () => {
    const e = validateSettings({
      backend_command: "hermes 'serve",
      ready_regex: "READY",
      health_path: "api/health",
      grace: "5 seconds",
      min_orphan_age: "-1m",
      start_at_login: true,
    });
    expect(Object.keys(e).sort()).toEqual(["backend_command", "grace", "health_path", "min_orphan_age", "ready_regex"]);
    expect(e.health_path).toBe("Must start with /");
    expect(e.min_orphan_age).toBe("Must not be negative");
    expect(hasErrors(e)).toBe(true);
    expect(hasErrors({})).toBe(false);
  });
  it("leaves patterns JavaScript cannot read to the Go side", () => {
    expect(validateSettings({ ...defaults, ready_regex: "(?i:ready) port=(\\d+)" }).ready_regex).toBeUndefined();
  });
  it("rejects spaces in the health path", () => {
    expect(validateSettings({ ...defaults, health_path: "/api/he alth" }).health_path).toBe("Must not contain spaces");
  });
});

describe("diffs", () => {
  it("lists changed keys, comparing durations by value", () => {
    expect(diffSettings(defaults, { ...defaults })).toEqual([]);
    expect(diffSettings(defaults, { ...defaults, grace: "5000ms", min_orphan_age: "3m" })).toEqual([]);
    expect(diffSettings(defaults, { ...defaults, grace: "6s", start_at_login: true })).toEqual(["grace", "start_at_login"]);
    expect(diffSettings(defaults, { ...defaults, health_path: " /api/health " })).toEqual([]);
  });
  it("treats empty text as the default when finding customized keys", () => {
    const s = { ...defaults, backend_command: "", health_path: "/healthz", grace: "5s", start_at_login: true };
    expect(customizedKeys(s, defaults)).toEqual(["health_path", "start_at_login"]);
    expect(customizedKeys(resetToDefaults(defaults), defaults)).toEqual([]);
  });
  it("normalizes before saving", () => {
    expect(normalizeSettings({ ...defaults, backend_command: "  hermes serve  ", grace: " 7s " })).toEqual({
      ...defaults,
      backend_command: "hermes serve",
      grace: "7s",
    });
  });
});
