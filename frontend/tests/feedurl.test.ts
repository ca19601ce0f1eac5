import { describe, expect, it } from "vitest";
import { FEED_MAX_BYTES, feedProblem } from "../src/feedurl";
// The verdicts Go's settings.ValidateFeedURL gives, checked against Go by
// backend/settings/settings_test.go: the mirror must agree on every one.
import vectors from "../../backend/settings/testdata/feed_urls.json";

describe("feedProblem agrees with Go's ValidateFeedURL", () => {
  it.each(vectors.ok)("accepts %j", (url) => expect(feedProblem(url)).toBeNull());
  it.each(vectors.insecure)("refuses %j as not https", (url) => expect(feedProblem(url)).toBe("insecure"));
  it.each(vectors["not-absolute"])("refuses %j as not absolute", (url) => expect(feedProblem(url)).toBe("not-absolute"));
  it("has vectors of every kind", () => {
    expect(vectors.ok.length).toBeGreaterThan(10);
    expect(vectors.insecure.length).toBeGreaterThan(10);
    expect(vectors["not-absolute"].length).toBeGreaterThan(10);
  });
});

describe("feedProblem's length limit", () => {
  const base = "https://example.com/";
  it("counts UTF-8 bytes, as Go's len does, up to 2048", () => {
    expect(FEED_MAX_BYTES).toBe(2048);
    expect(feedProblem(base + "x".repeat(2048 - base.length))).toBeNull();
    expect(feedProblem(base + "x".repeat(2049 - base.length))).toBe("too-long");
    // "é" is two bytes: 1014 of them fill the limit exactly, though the
    // string is only 1034 characters long.
    expect(feedProblem(base + "é".repeat(1014))).toBeNull();
    expect(feedProblem(base + "é".repeat(1015))).toBe("too-long");
  });
  it("checks the length first, as Go does", () => {
    expect(feedProblem("ftp://" + "x".repeat(3000))).toBe("too-long");
  });
});
