import { describe, expect, it } from "vitest";
import { filterLines, LogBuffer } from "../src/logbuffer";
import { line } from "./fixtures";

const texts = (b: LogBuffer) => b.lines().map((l) => l.text);

describe("LogBuffer", () => {
  it("appends in order and reports how many were new", () => {
    const b = new LogBuffer(10);
    expect(b.add([line(1, "a"), line(2, "b")])).toBe(2);
    expect(b.add([line(3, "c")])).toBe(1);
    expect(texts(b)).toEqual(["a", "b", "c"]);
  });

  it("drops lines seen twice when a Logs() result and an event overlap", () => {
    const b = new LogBuffer(100);
    const v0 = b.version;
    b.add([line(3, "c"), line(4, "d")]); // event arrived first
    b.add([line(1, "a"), line(2, "b"), line(3, "c"), line(4, "d")]); // then the initial Logs()
    expect(texts(b)).toEqual(["a", "b", "c", "d"]);
    expect(b.add([line(4, "d")])).toBe(0);
    expect(b.size).toBe(4);
    expect(b.version).toBe(v0 + 2);
  });

  it("keeps the newest lines up to its cap", () => {
    const b = new LogBuffer(3);
    b.add([1, 2, 3, 4, 5].map((i) => line(i, `l${i}`)));
    expect(texts(b)).toEqual(["l3", "l4", "l5"]);
    b.add([line(6, "l6")]);
    expect(texts(b)).toEqual(["l4", "l5", "l6"]);
    // An evicted line may come back only if it is really new to the buffer.
    expect(b.lastSeq("hermes")).toBe(6);
  });

  it("does not confuse two backends with the same seq", () => {
    const b = new LogBuffer(10);
    b.add([line(1, "h1"), line(1, "r1", { backend: "research" })]);
    expect(b.size).toBe(2);
    expect(b.lastSeq("research")).toBe(1);
    expect(b.lastSeq("nope")).toBe(0);
  });

  it("accepts a restarted counter (same seq, later time)", () => {
    const b = new LogBuffer(10);
    b.add([line(1, "old")]);
    b.add([{ ...line(1, "new"), time: "2024-05-01T11:00:00Z" }]);
    expect(texts(b)).toEqual(["old", "new"]);
  });

  it("interleaves backends by time", () => {
    const b = new LogBuffer(10);
    b.add([line(1, "h@1"), line(3, "h@3")]);
    b.add([line(2, "r@2", { backend: "research" })]);
    expect(texts(b)).toEqual(["h@1", "r@2", "h@3"]);
  });

  it("clears", () => {
    const b = new LogBuffer(10);
    b.add([line(1, "a")]);
    b.clear();
    expect(b.size).toBe(0);
    expect(b.add([line(1, "a")])).toBe(1);
  });
});

describe("filterLines", () => {
  const lines = [
    line(1, "GET /api/health 200"),
    line(2, "Error: Disk FULL", { stream: "stderr" }),
    line(3, "disk usage ok", { backend: "research" }),
  ];
  it("matches case-insensitive substrings", () => {
    expect(filterLines(lines, { text: "disk", backend: "" }).map((l) => l.seq)).toEqual([2, 3]);
    expect(filterLines(lines, { text: "  FULL ", backend: "" }).map((l) => l.seq)).toEqual([2]);
  });
  it("filters by backend", () => {
    expect(filterLines(lines, { text: "disk", backend: "research" }).map((l) => l.text)).toEqual(["disk usage ok"]);
    expect(filterLines(lines, { text: "", backend: "hermes" })).toHaveLength(2);
  });
  it("passes everything with an empty filter", () => {
    expect(filterLines(lines, { text: "", backend: "" })).toHaveLength(3);
  });
});
