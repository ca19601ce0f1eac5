import { describe, expect, it } from "vitest";
import {
  captureGroups,
  commandError,
  customizedKeys,
  diffSettings,
  hasErrors,
  normalizeDraft,
  parseGoDuration,
  resetToDefaults,
  settingsToSave,
  toDraft,
  validateSettings,
  type SettingsDraft,
} from "../src/settings";
import type { Settings } from "../src/types";
import { defaults as defaultSettings } from "./fixtures";

const defaults: SettingsDraft = toDraft(defaultSettings);

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
    const empty = { ...defaults, backend_command: "", ready_regex: "", health_path: "", grace: "", min_orphan_age: "" };
    expect(validateSettings({ ...empty, sample_interval: "", max_duplicate_children: "", nofile_soft_limit: "" })).toEqual({});
  });
  it("flags each bad field", () => {
    const e = validateSettings({
      backend_command: "hermes 'serve",
      ready_regex: "READY",
      health_path: "api/health",
      grace: "5 seconds",
      min_orphan_age: "-1m",
      start_at_login: true,
      sample_interval: "fast",
      max_duplicate_children: "two",
      restart_on_fd_pressure: true,
      nofile_soft_limit: "-1",
    });
    expect(Object.keys(e).sort()).toEqual([
      "backend_command",
      "grace",
      "health_path",
      "max_duplicate_children",
      "min_orphan_age",
      "nofile_soft_limit",
      "ready_regex",
      "sample_interval",
    ]);
    expect(e.health_path).toBe("Must start with /");
    expect(e.min_orphan_age).toBe("Must not be negative");
    expect(hasErrors(e)).toBe(true);
    expect(hasErrors({})).toBe(false);
  });
  it("leaves patterns JavaScript cannot read to the Go side", () => {
    expect(validateSettings({ ...defaults, ready_regex: "(?i:ready) port=(\\d+)" }).ready_regex).toBeUndefined();
  });
  it("mirrors Go's ranges for the durations", () => {
    const err = (over: Partial<SettingsDraft>) => validateSettings({ ...defaults, ...over });
    expect(err({ grace: "0" }).grace).toBe("Must be at least 1ms");
    expect(err({ grace: "11m" }).grace).toBe("Must be at most 10m");
    expect(err({ grace: "10m", min_orphan_age: "1s" })).toEqual({});
    expect(err({ min_orphan_age: "500ms" }).min_orphan_age).toBe("Must be at least 1s");
    expect(err({ min_orphan_age: "169h" }).min_orphan_age).toBe("Must be at most 168h (7 days)");
  });
  it("checks the leak guard's sample interval: 100ms..1h", () => {
    const si = (v: string) => validateSettings({ ...defaults, sample_interval: v }).sample_interval;
    expect(si("100ms")).toBeUndefined();
    expect(si("1h")).toBeUndefined();
    expect(si("2.5s")).toBeUndefined();
    expect(si("99ms")).toBe("Must be at least 100ms");
    expect(si("0")).toBe("Must be at least 100ms");
    expect(si("61m")).toBe("Must be at most 1h");
    expect(si("-5s")).toBe("Must not be negative");
    expect(si("5")).toBe("Use a duration like 5s, 500ms or 1m");
  });
  it("checks the leak guard's counts as whole numbers in range", () => {
    const v = (over: Partial<SettingsDraft>) => validateSettings({ ...defaults, ...over });
    expect(v({ max_duplicate_children: "0", nofile_soft_limit: "0" })).toEqual({});
    expect(v({ max_duplicate_children: "1000", nofile_soft_limit: "1048576" })).toEqual({});
    expect(v({ max_duplicate_children: " 4 " })).toEqual({});
    expect(v({ max_duplicate_children: "1001" }).max_duplicate_children).toBe("Must be at most 1,000");
    expect(v({ nofile_soft_limit: "1048577" }).nofile_soft_limit).toBe("Must be at most 1,048,576");
    for (const bad of ["-1", "2.5", "1e3", "ten", "0x10", "4 096"]) {
      expect(v({ max_duplicate_children: bad }).max_duplicate_children, bad).toBe("Enter a whole number from 0 to 1,000");
      expect(v({ nofile_soft_limit: bad }).nofile_soft_limit, bad).toBe("Enter a whole number from 0 to 1,048,576");
    }
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
    expect(customizedKeys(resetToDefaults(defaultSettings), defaults)).toEqual([]);
  });
  it("compares the leak guard's fields by meaning", () => {
    expect(diffSettings(defaults, { ...defaults, sample_interval: "5000ms" })).toEqual([]);
    // Empty and 0 both turn the duplicate limit off.
    expect(diffSettings({ ...defaults, max_duplicate_children: "" }, { ...defaults, max_duplicate_children: "0" })).toEqual([]);
    expect(diffSettings({ ...defaults, max_duplicate_children: "3" }, { ...defaults, max_duplicate_children: "03" })).toEqual([]);
    // An empty floor is the default; 0 turns it off: different.
    expect(diffSettings({ ...defaults, nofile_soft_limit: "" }, { ...defaults, nofile_soft_limit: "0" })).toEqual(["nofile_soft_limit"]);
    expect(diffSettings(defaults, { ...defaults, restart_on_fd_pressure: true })).toEqual(["restart_on_fd_pressure"]);
    const custom = { ...defaults, max_duplicate_children: "4", nofile_soft_limit: "0", sample_interval: "", restart_on_fd_pressure: true };
    expect(customizedKeys(custom, defaults)).toEqual(["max_duplicate_children", "restart_on_fd_pressure", "nofile_soft_limit"]);
    expect(customizedKeys({ ...defaults, max_duplicate_children: "0", nofile_soft_limit: "4096", sample_interval: "5s" }, defaults)).toEqual([]);
  });
  it("normalizes before saving", () => {
    expect(normalizeDraft({ ...defaults, backend_command: "  hermes serve  ", grace: " 7s ", nofile_soft_limit: " 8192 " })).toEqual({
      ...defaults,
      backend_command: "hermes serve",
      grace: "7s",
      nofile_soft_limit: "8192",
    });
  });
});

describe("toDraft", () => {
  it("reads fields Go omitted as their zero and the floor's null as empty", () => {
    const d = toDraft({ backend_command: "", ready_regex: "", health_path: "", grace: "", min_orphan_age: "", start_at_login: false });
    expect(d).toEqual({
      backend_command: "",
      ready_regex: "",
      health_path: "",
      grace: "",
      min_orphan_age: "",
      start_at_login: false,
      sample_interval: "",
      max_duplicate_children: "",
      restart_on_fd_pressure: false,
      nofile_soft_limit: "",
    });
    expect(toDraft({ ...defaultSettings, nofile_soft_limit: undefined }).nofile_soft_limit).toBe("");
    expect(toDraft({ ...defaultSettings, nofile_soft_limit: 0 }).nofile_soft_limit).toBe("0");
    expect(toDraft({ ...defaultSettings, max_duplicate_children: 0 }).max_duplicate_children).toBe("");
    expect(toDraft({ ...defaultSettings, max_duplicate_children: 6, restart_on_fd_pressure: true })).toMatchObject({
      max_duplicate_children: "6",
      restart_on_fd_pressure: true,
    });
  });
});

describe("settingsToSave", () => {
  const loaded = { ...defaultSettings, max_duplicate_children: 4, nofile_soft_limit: 8192, future_knob: { on: true }, other: "x" } as Settings;

  it("keeps every field of the loaded object, including unknown ones", () => {
    const out = settingsToSave(loaded, toDraft(loaded)) as Settings & Record<string, unknown>;
    // Go omitted restart_on_fd_pressure (false); Save states it.
    expect(out).toEqual({ ...loaded, restart_on_fd_pressure: false });
    expect(out.future_knob).toEqual({ on: true });
    expect(out.other).toBe("x");
  });
  it("lays the edited fields over it, trimmed and typed", () => {
    const d = { ...toDraft(loaded), grace: " 7s ", sample_interval: "2s", max_duplicate_children: " 12 ", restart_on_fd_pressure: true, nofile_soft_limit: "65536" };
    expect(settingsToSave(loaded, d)).toEqual({
      ...loaded,
      grace: "7s",
      sample_interval: "2s",
      max_duplicate_children: 12,
      restart_on_fd_pressure: true,
      nofile_soft_limit: 65536,
    });
  });
  it("leaves an empty floor out (the default) and sends 0 as 0 (off)", () => {
    const empty = settingsToSave(loaded, { ...toDraft(loaded), nofile_soft_limit: "" });
    expect(JSON.parse(JSON.stringify(empty))).not.toHaveProperty("nofile_soft_limit");
    expect(settingsToSave(loaded, { ...toDraft(loaded), nofile_soft_limit: "0" }).nofile_soft_limit).toBe(0);
    expect(settingsToSave(loaded, { ...toDraft(loaded), max_duplicate_children: "" }).max_duplicate_children).toBe(0);
  });
  it("resetting gives the defaults' draft", () => {
    expect(resetToDefaults(defaultSettings)).toEqual(toDraft(defaultSettings));
    expect(resetToDefaults(defaultSettings).nofile_soft_limit).toBe("4096");
  });
});
