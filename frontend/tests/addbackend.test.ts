import { describe, expect, it } from "vitest";
import { NAME_PATTERN, normalizeAddDraft, toBackendSetting, validateAdd, type AddDraft } from "../src/addbackend";

const draft = (over: Partial<AddDraft> = {}): AddDraft => ({ name: "work", kind: "dashboard", profile: "", command: "", ...over });

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
    [draft({ kind: "custom" }), { command: "Enter the command that starts the server" }],
    [draft({ kind: "custom", command: "srv", profile: "-ignored" }), {}],
    [draft({ kind: "serve", profile: "-x" }), { profile: "A profile name does not start with '-'" }],
    [draft({ kind: "serve", profile: "a b" }), { profile: "A profile name has no spaces" }],
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
});

describe("validateAdd: the command's quoting (issue 23)", () => {
  it("says an unclosed quote in words, on the command field", () => {
    const d = { name: "web", kind: "custom" as const, profile: "", command: "python3 -c 'print(1)" };
    expect(validateAdd(d, [])).toEqual({ command: "A ' quote is not closed" });
    expect(validateAdd({ ...d, command: "python3 -c 'print(1)'" }, [])).toEqual({});
  });
});
