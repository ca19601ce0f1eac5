import { setQuoting } from "../src/format";
import { describe, expect, it } from "vitest";
import {
  captureGroups,
  commandError,
  customizedKeys,
  diffSettings,
  fieldErrorsFrom,
  sshConfigError,
  hasErrors,
  normalizeDraft,
  parseGoDuration,
  resetToDefaults,
  savedText,
  applyEdit,
  backendCommandInUse,
  settingsEdit,
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
    expect(commandError("hermes 'oops")).toBe("A ' quote is not closed");
    expect(commandError('hermes "oops \\"')).toBe('A " quote is not closed');
    expect(commandError("hermes \\")).toBe("It ends with a backslash");
  });
  it("reads Windows' quoting when the engine runs on Windows", () => {
    setQuoting("windows");
    try {
      expect(commandError(`C:\\Users\\O'Brien\\hermes.exe serve`)).toBeNull();
      expect(commandError(`"C:\\Program Files\\Hermes\\hermes.exe" dashboard C:\\dir\\`)).toBeNull();
      expect(commandError(`say \\"hi`)).toBeNull(); // \" is a literal quote
      expect(commandError(`"C:\\Program Files\\oops`)).toBe('A " quote is not closed');
      expect(commandError(`a\\\\"b c`)).toBe('A " quote is not closed'); // \\" is a backslash, then a quote
    } finally {
      setQuoting("posix");
    }
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
      update_feed: "http://example.com/stable.json",
      update_automatically: true,
      ssh_config: "ssh/config",
      disconnect_grace: "1s",
    });
    expect(Object.keys(e).sort()).toEqual([
      "backend_command",
      "disconnect_grace",
      "grace",
      "health_path",
      "max_duplicate_children",
      "min_orphan_age",
      "nofile_soft_limit",
      "ready_regex",
      "sample_interval",
      "ssh_config",
    ]); // the feed is Go's to judge (App.FeedURLError)
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
    expect(err({ grace: "0" }).grace).toBe("Must be at least 1 ms");
    expect(err({ grace: "11m" }).grace).toBe("Must be at most 10 min");
    expect(err({ grace: "10m", min_orphan_age: "1s" })).toEqual({});
    expect(err({ min_orphan_age: "500ms" }).min_orphan_age).toBe("Must be at least 1 s");
    expect(err({ min_orphan_age: "169h" }).min_orphan_age).toBe("Must be at most 7 d");
  });
  it("checks the leak guard's sample interval: 100ms..1h", () => {
    const si = (v: string) => validateSettings({ ...defaults, sample_interval: v }).sample_interval;
    expect(si("100ms")).toBeUndefined();
    expect(si("1h")).toBeUndefined();
    expect(si("2.5s")).toBeUndefined();
    expect(si("99ms")).toBe("Must be at least 100 ms");
    expect(si("0")).toBe("Must be at least 100 ms");
    expect(si("61m")).toBe("Must be at most 1 h");
    expect(si("-5s")).toBe("Must not be negative");
    expect(si("5")).toBe("Use a duration like 5s, 500ms or 1m");
  });
  it("checks the disconnect grace: 3s..1h (settings.MinDisconnectGrace)", () => {
    const dg = (v: string) => validateSettings({ ...defaults, disconnect_grace: v }).disconnect_grace;
    expect(dg("")).toBeUndefined();
    expect(dg("3s")).toBeUndefined();
    expect(dg("1h")).toBeUndefined();
    expect(dg("2.5s")).toBe("Must be at least 3 s");
    expect(dg("61m")).toBe("Must be at most 1 h");
    expect(dg("30")).toBe("Use a duration like 30s, 2m or 1h");
  });
  it("wants the ssh config file as a full path, as Go's filepath.IsAbs", () => {
    const sc = (v: string) => validateSettings({ ...defaults, ssh_config: v }).ssh_config;
    expect(sc("")).toBeUndefined();
    expect(sc(" /home/u/.ssh/hermes ")).toBeUndefined();
    expect(sc("~/.ssh/config")).toBe("Use a full path like /home/you/.ssh/config");
    expect(sshConfigError("C:\\Users\\u\\.ssh\\config")).toBe("Use a full path like /home/you/.ssh/config");
    setQuoting("windows");
    try {
      expect(sshConfigError("C:\\Users\\u\\.ssh\\config")).toBeNull();
      expect(sshConfigError("\\\\server\\share\\config")).toBeNull();
      expect(sshConfigError("/home/u/config")).toBe("Use a full path like C:\\Users\\you\\.ssh\\config");
      expect(sshConfigError(".ssh\\config")).not.toBeNull();
    } finally {
      setQuoting("posix");
    }
  });
  it("lands Go's refusals of the remote settings on their fields", () => {
    const { errors, rest } = fieldErrorsFrom('SSH config file: "x" is not an absolute path like /home/you/.ssh/config\nDisconnect grace: 1s is below 3s');
    expect(errors).toEqual({ ssh_config: '"x" is not an absolute path like /home/you/.ssh/config', disconnect_grace: "1s is below 3s" });
    expect(rest).toEqual([]);
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
  it("counts a field put back to its default as unchanged (issue 31, item 6)", () => {
    const saved = toDraft({} as Settings); // every field empty: the defaults
    // Reset to defaults fills each field with the default's text.
    expect(diffSettings(resetToDefaults(defaultSettings), saved, defaults)).toEqual([]);
    expect(diffSettings({ ...saved, grace: "5000ms", nofile_soft_limit: "4096" }, saved, defaults)).toEqual([]);
    expect(diffSettings({ ...saved, grace: "6s" }, saved, defaults)).toEqual(["grace"]);
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
      update_feed: "",
      update_automatically: false,
      ssh_config: "",
      disconnect_grace: "",
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

describe("settingsEdit", () => {
  const loaded = { ...defaultSettings, max_duplicate_children: 4, nofile_soft_limit: 8192, future_knob: { on: true }, other: "x" } as Settings;

  it("sends only the changed fields, never the loaded copy or the backend list", () => {
    const withList = { ...loaded, backends: [{ name: "hermes", kind: "dashboard" as const }] };
    const d = { ...toDraft(withList), grace: " 7s " };
    const e = settingsEdit(d, diffSettings(d, toDraft(withList)));
    expect(e).toEqual({ settings: { grace: "7s" }, fields: ["grace"] });
    expect(JSON.stringify(e)).not.toContain("backends");
    expect(JSON.stringify(e)).not.toContain("future_knob");
  });
  it("sends the edited fields trimmed and typed", () => {
    const d = { ...toDraft(loaded), grace: " 7s ", sample_interval: "2s", max_duplicate_children: " 12 ", restart_on_fd_pressure: true, nofile_soft_limit: "65536" };
    const changed = diffSettings(d, toDraft(loaded));
    expect(settingsEdit(d, changed)).toEqual({
      settings: { grace: "7s", sample_interval: "2s", max_duplicate_children: 12, restart_on_fd_pressure: true, nofile_soft_limit: 65536 },
      fields: ["grace", "sample_interval", "max_duplicate_children", "restart_on_fd_pressure", "nofile_soft_limit"],
    });
  });
  it("leaves an empty floor out (the default) and sends 0 as 0 (off)", () => {
    const empty = settingsEdit({ ...toDraft(loaded), nofile_soft_limit: "" }, ["nofile_soft_limit"]);
    expect(empty.fields).toEqual(["nofile_soft_limit"]);
    expect(JSON.parse(JSON.stringify(empty.settings))).not.toHaveProperty("nofile_soft_limit");
    expect(settingsEdit({ ...toDraft(loaded), nofile_soft_limit: "0" }, ["nofile_soft_limit"]).settings.nofile_soft_limit).toBe(0);
    expect(settingsEdit({ ...toDraft(loaded), max_duplicate_children: "" }, ["max_duplicate_children"]).settings.max_duplicate_children).toBe(0);
  });
  it("laid over what is saved now, keeps a backend added since the page loaded (Go: Edit.Apply)", () => {
    const now = { ...loaded, backends: [{ name: "hermes", kind: "dashboard" as const }, { name: "web", kind: "custom" as const, command: "python3 -m http.server 0" }] };
    const d = { ...toDraft(loaded), grace: "9s" };
    const out = applyEdit(now, settingsEdit(d, diffSettings(d, toDraft(loaded))));
    expect(out.backends!.map((b) => b.name)).toEqual(["hermes", "web"]);
    expect(out).toMatchObject({ grace: "9s", future_knob: { on: true }, nofile_soft_limit: 8192 });
  });
  it("resetting gives the defaults' draft", () => {
    expect(resetToDefaults(defaultSettings)).toEqual(toDraft(defaultSettings));
    expect(resetToDefaults(defaultSettings).nofile_soft_limit).toBe("4096");
  });
  it("resetting keeps the saved backend command while a backend list makes it unused", () => {
    const listed = { ...defaultSettings, backend_command: "", backends: [{ name: "hermes", kind: "serve" as const }] };
    expect(backendCommandInUse(listed)).toBe(false);
    expect(backendCommandInUse(defaultSettings)).toBe(true);
    expect(resetToDefaults(defaultSettings, listed).backend_command).toBe("");
    expect(diffSettings(resetToDefaults(defaultSettings, listed), toDraft(listed))).not.toContain("backend_command");
  });
});

describe("the update settings", () => {
  const FEED = "https://example.com/hermes-desktop/stable.json";

  it("leave the feed to Go (App.FeedURLError): no copy of its rule here", () => {
    for (const url of ["", FEED, "http://example.com/stable.json", "example.com"]) {
      expect(validateSettings({ ...defaults, update_feed: url }).update_feed, url).toBeUndefined();
    }
  });

  it("round-trip through the draft and Save", () => {
    // Go omits both when empty/false: the form reads them as no feed, off.
    const loaded = { ...defaultSettings } as Settings;
    const d = toDraft(loaded);
    expect([d.update_feed, d.update_automatically]).toEqual(["", false]);

    const edited = { ...d, update_feed: `  ${FEED} `, update_automatically: true };
    expect(diffSettings(d, edited)).toEqual(["update_feed", "update_automatically"]);
    const saved = applyEdit(loaded, settingsEdit(edited, diffSettings(d, edited)));
    expect(saved).toEqual({ ...loaded, update_feed: FEED, update_automatically: true });
    // What Go sends back reads as what was saved: nothing left to save.
    expect(toDraft(saved)).toEqual(normalizeDraft(edited));
    expect(diffSettings(toDraft(saved), edited)).toEqual([]);

    // Clearing the feed sends "" (updates off), not the old value.
    expect(settingsEdit({ ...toDraft(saved), update_feed: "" }, ["update_feed"]).settings).toEqual({ update_feed: "" });
  });

  it("count as customized once set, and reset to none and off", () => {
    expect(customizedKeys({ ...defaults, update_feed: FEED, update_automatically: true }, defaults)).toEqual(["update_feed", "update_automatically"]);
    const reset = resetToDefaults(defaultSettings);
    expect([reset.update_feed, reset.update_automatically]).toEqual(["", false]);
  });
});

describe("savedText", () => {
  it("says what applies now and what waits for a restart", () => {
    expect(savedText(["update_feed", "update_automatically", "start_at_login"])).toBe("Saved and applied");
    expect(savedText(["min_orphan_age"])).toBe("Saved — restart Hermes Desktop to apply");
    expect(savedText(["grace"])).toBe("Saved — restart Hermes Desktop to apply; backends you add from now on use it at once");
    // No restart asked for: the next connection reads it (Go: Launcher.SettingsSaved).
    expect(savedText(["ssh_config"])).toBe(
      "Saved — connections made from now on read the new SSH config file (a host already connected keeps its own until Hermes Desktop restarts)",
    );
    expect(savedText(["min_orphan_age", "update_feed"])).toBe("Saved — some changes apply now, the rest when you restart Hermes Desktop");
  });
  it("says when a flag or environment variable keeps winning", () => {
    expect(savedText(["update_feed"], { update_feed: "--update-feed" })).toBe("Saved — --update-feed still wins over the saved value");
    expect(savedText(["update_feed", "update_automatically"], { update_feed: "HERMES_DESKTOP_UPDATE_FEED", update_automatically: "--update-automatically" })).toBe(
      "Saved — HERMES_DESKTOP_UPDATE_FEED and --update-automatically still win over the saved value",
    );
    // Held keys only count when they changed.
    expect(savedText(["update_automatically"], { update_feed: "--update-feed" })).toBe("Saved and applied");
    expect(savedText(["min_orphan_age", "update_feed"], { update_feed: "--update-feed" })).toBe(
      "Saved — restart Hermes Desktop to apply; --update-feed still wins over the saved value",
    );
  });
});
