import { describe, expect, it } from "vitest";
import { NAME_PATTERN, normalizeAddDraft, refusalByField, toBackendSetting, validateAdd, type AddDraft } from "../src/addbackend";

const draft = (over: Partial<AddDraft> = {}): AddDraft => ({ name: "work", kind: "dashboard", profile: "", command: "", ready_regex: "", health_path: "", grace: "", host: "", ...over });

describe("NAME_PATTERN", () => {
  it("is Go's lockfile.ValidName", () => {
    for (const ok of ["a", "A1", "hermes", "work.2", "x_y-z", "9", "a".repeat(64)]) expect(NAME_PATTERN.test(ok), ok).toBe(true);
    for (const bad of ["", "-a", ".a", "_a", "a b", "a/b", "ä", "a".repeat(65)]) expect(NAME_PATTERN.test(bad), bad).toBe(false);
  });
});

describe("validateAdd", () => {
  it.each([
    [draft(), {}],
    [draft({ name: "" }), { name: "Enter a name" }],
    [draft({ name: "-x" }), { name: "Use letters, digits, '.', '_' or '-', starting with a letter or digit" }],
    [draft({ name: "a".repeat(65) }), { name: "At most 64 characters" }],
    [draft({ name: "hermes" }), { name: "A backend is already named hermes" }],
    // One log file where names ignore case (Windows, macOS); a device there.
    [draft({ name: "Hermes" }), { name: "A backend is already named hermes (names that differ only in upper and lower case count as the same)" }],
    [draft({ name: "con" }), { name: "CON is a device name on Windows, not a name a file can have: choose another" }],
    [draft({ name: "COM1.work" }), { name: "COM1 is a device name on Windows, not a name a file can have: choose another" }],
    [draft({ name: "console" }), {}],
    [draft({ kind: "custom" }), { command: "Enter the command that starts the server" }],
    [draft({ kind: "custom", command: "srv", profile: "-ignored" }), {}],
    [draft({ kind: "serve", profile: "-x" }), { profile: "A profile name does not start with '-'" }],
    [draft({ kind: "serve", profile: "a b" }), { profile: "A profile name has no spaces" }],
    // A custom backend's own readiness: the Settings page's rules and words.
    [draft({ kind: "custom", command: "srv", ready_regex: "port (\\d+)", health_path: "/", grace: "3s" }), {}],
    [draft({ kind: "custom", command: "srv", ready_regex: "port \\d+" }), { ready_regex: "The pattern needs a capture group for the port, like port=(\\d+)" }],
    [draft({ kind: "custom", command: "srv", health_path: "health" }), { health_path: "Must start with /" }],
    // Flagged with the rest, not after them (issue 31, item 7): what Go
    // refuses, JavaScript's own syntax aside.
    [draft({ name: "", kind: "custom", command: "", ready_regex: "port=(?!x)(\\d+)" }), { name: "Enter a name", command: "Enter the command that starts the server", ready_regex: "Lookarounds and atomic groups are not supported (Go's regular expressions)" }],
    [draft({ kind: "custom", command: "srv", ready_regex: "port=(?=\\d)(\\d+)" }), { ready_regex: "Lookarounds and atomic groups are not supported (Go's regular expressions)" }],
    [draft({ kind: "custom", command: "srv", ready_regex: "(a)\\1 port=(\\d+)" }), { ready_regex: "Backreferences like \\1 are not supported (Go's regular expressions)" }],
    [draft({ kind: "custom", command: "srv", ready_regex: "(?P<port>\\d+) \\\\1" }), {}],
    [draft({ kind: "custom", command: "srv", health_path: "/a b" }), { health_path: "Must not contain spaces" }],
    [draft({ kind: "custom", command: "srv", grace: "soon" }), { grace: "Use a duration like 5s, 1m or 1m30s" }],
    [draft({ kind: "custom", command: "srv", grace: "11m" }), { grace: "Must be at most 10 min" }],
    [draft({ kind: "custom", command: "srv", grace: "0s" }), { grace: "Must be at least 1 ms" }],
    // Only a custom backend has them: a Hermes kind ignores what was typed before a switch.
    [draft({ kind: "dashboard", ready_regex: "no group", grace: "soon" }), {}],
    // A host, any kind: the first check of Go's settings.ValidateHost.
    [draft({ host: "me@build-box" }), {}],
    [draft({ kind: "custom", command: "srv", host: "ssh://me@build-box:2222" }), {}],
    [draft({ host: "-oProxyCommand=x" }), { host: "A host does not start with '-'" }],
    [draft({ host: "me@build box" }), { host: "A host has no spaces" }],
    [draft({ host: "a\tb" }), { host: "A host has no spaces" }],
    [draft({ host: "h".repeat(256) }), { host: "At most 255 characters" }],
    [draft({ host: "box;reboot" }), { host: "A host cannot hold ';'" }],
    [draft({ host: "$(id)" }), { host: "A host cannot hold '('" }],
    [draft({ host: "`id`" }), { host: "A host cannot hold '`'" }],
    [draft({ host: "ssh://me@[::1]:2222" }), {}],
  ])("%o -> %o", (d, want) => {
    expect(validateAdd(d, ["hermes", "api"])).toEqual(want);
  });
});

describe("toBackendSetting", () => {
  it("sends only what the kind uses, trimmed", () => {
    expect(toBackendSetting(normalizeAddDraft(draft({ name: " w ", profile: " p ", command: "x" })))).toEqual({ name: "w", kind: "dashboard", args: ["--profile", "p"] });
    expect(toBackendSetting(draft({ kind: "serve" }))).toEqual({ name: "work", kind: "serve" });
    expect(toBackendSetting(draft({ kind: "custom", profile: "p", command: "srv --port 0" }))).toEqual({ name: "work", kind: "custom", command: "srv --port 0" });
  });

  it("sends a host, trimmed, only when one is given", () => {
    expect(toBackendSetting(normalizeAddDraft(draft({ host: " me@box ", profile: "p" })))).toEqual({ name: "work", kind: "dashboard", args: ["--profile", "p"], host: "me@box" });
    expect(toBackendSetting(draft({ kind: "custom", command: "srv", host: "box" }))).toEqual({ name: "work", kind: "custom", command: "srv", host: "box" });
    expect(toBackendSetting(draft({ host: "" }))).not.toHaveProperty("host");
  });

  it("sends a custom backend's own readiness only where it is filled in", () => {
    const d = normalizeAddDraft(draft({ kind: "custom", command: "python3 -m http.server 0", ready_regex: " port (\\d+) ", health_path: " / ", grace: "" }));
    expect(toBackendSetting(d)).toEqual({ name: "work", kind: "custom", command: "python3 -m http.server 0", ready_regex: "port (\\d+)", health_path: "/" });
    expect(toBackendSetting(draft({ kind: "serve", ready_regex: "port (\\d+)", grace: "3s" }))).toEqual({ name: "work", kind: "serve" });
  });
});

describe("refusalByField", () => {
  it("lays Go's words on the field they name", () => {
    expect(refusalByField("backend web: Ready pattern: not a valid regular expression: invalid or unsupported Perl syntax: `(?=`")).toEqual({
      errors: { ready_regex: "Not a valid regular expression: invalid or unsupported Perl syntax: `(?=`" },
      rest: "",
    });
    expect(refusalByField('backend web: Health check path: must start with /\nStop grace period: "soon" is not a duration like 5s or 3m')).toEqual({
      errors: { health_path: "Must start with /", grace: '"soon" is not a duration like 5s or 3m' },
      rest: "",
    });
    expect(refusalByField(`backend far: Host: "box;x": ';' cannot be in a host; want an ssh destination like user@example.com`)).toEqual({
      errors: { host: `"box;x": ';' cannot be in a host; want an ssh destination like user@example.com` },
      rest: "",
    });
    expect(refusalByField("backend x: command: unterminated ' in command")).toEqual({ errors: { command: "Unterminated ' in command" }, rest: "" });
    expect(refusalByField('bad request: a backend is already named "x"')).toEqual({ errors: { name: 'A backend is already named "x"' }, rest: "" });
    expect(refusalByField('bad request: backend "A": another backend has this name (names that differ only in upper and lower case count as the same)')).toEqual({
      errors: { name: "Another backend has this name (names that differ only in upper and lower case count as the same)" },
      rest: "",
    });
    expect(refusalByField("refused: the launcher is not running yet")).toEqual({ errors: {}, rest: "refused: the launcher is not running yet" });
  });
});

describe("validateAdd: the command's quoting (issue 23)", () => {
  it("says an unclosed quote in words, on the command field", () => {
    const d = { name: "web", kind: "custom" as const, profile: "", command: "python3 -c 'print(1)", ready_regex: "", health_path: "", grace: "", host: "" };
    expect(validateAdd(d, [])).toEqual({ command: "A ' quote is not closed" });
    expect(validateAdd({ ...d, command: "python3 -c 'print(1)'" }, [])).toEqual({});
  });
});
