import { describe, expect, it } from "vitest";
import { lineTone, logRow } from "../src/views/logs";
import type { LogLine } from "../src/types";

const line = (stream: string, text: string): LogLine => ({ seq: 1, time: "2026-12-03T10:00:00Z", backend: "web", stream, text }) as LogLine;

describe("lineTone (issue 31, item 10)", () => {
  it("shows ordinary records written to stderr plainly, and errors as errors", () => {
    // Python's http.server access lines and our watchdog's records go to stderr.
    expect(lineTone(line("stderr", '127.0.0.1 - - [03/Dec/2026 10:00:00] "GET / HTTP/1.1" 200 -'))).toBe("stderr-info");
    expect(lineTone(line("stderr", "time=2026-12-03T10:00:00Z level=INFO msg=started component=watchdog"))).toBe("stderr-info");
    expect(lineTone(line("stderr", "INFO: Uvicorn running on http://127.0.0.1:8000"))).toBe("stderr-info");
    expect(lineTone(line("stderr", '127.0.0.1 - - [03/Dec/2026 10:00:00] "GET /x HTTP/1.1" 404 -'))).toBe("stderr");
    expect(lineTone(line("stderr", "time=2026-12-03T10:00:00Z level=ERROR msg=crash"))).toBe("stderr");
    expect(lineTone(line("stderr", "Traceback (most recent call last):"))).toBe("stderr");
    expect(lineTone(line("stdout", "level=INFO msg=x"))).toBe("stdout");
  });
  it("gives the row the tone's class", () => {
    expect(logRow(line("stderr", "level=INFO msg=x"), "", false).className).toBe("log-line stream-stderr-info");
    expect(logRow(line("stderr", "boom"), "", false).className).toBe("log-line stream-stderr");
  });
});
