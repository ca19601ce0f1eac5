import { describe, expect, it } from "vitest";
import {
  ageChangesIn,
  errorMessage,
  formatAge,
  formatBytes,
  formatCount,
  clockTimeChangesIn,
  durationChangesIn,
  formatClockTime,
  formatDuration,
  formatSpan,
  formatUptime,
  parseTime,
  plural,
  shellJoin,
  setQuoting,
  shellQuote,
  truncate,
} from "../src/format";

// A port of backend.SplitCommand, to check that shellJoin round-trips.
function split(s: string): string[] {
  const out: string[] = [];
  let cur = "";
  let inWord = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === " " || c === "\t" || c === "\n") {
      if (inWord) out.push(cur);
      cur = "";
      inWord = false;
    } else if (c === "'") {
      const end = s.indexOf("'", i + 1);
      if (end < 0) throw new Error("unterminated");
      cur += s.slice(i + 1, end);
      i = end;
      inWord = true;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < s.length && s[j] !== '"'; j++) {
        if (s[j] === "\\" && j + 1 < s.length && (s[j + 1] === '"' || s[j + 1] === "\\")) j++;
        cur += s[j];
      }
      i = j;
      inWord = true;
    } else if (c === "\\") {
      cur += s[++i];
      inWord = true;
    } else {
      cur += c;
      inWord = true;
    }
  }
  if (inWord) out.push(cur);
  return out;
}

describe("formatDuration", () => {
  it.each([
    [0, "0 s"],
    [999, "0 s"],
    [12_000, "12 s"],
    [59_999, "59 s"],
    [60_000, "1 min"],
    [192_000, "3 min"],
    [3_599_999, "59 min"],
    [3_600_000, "1 h"],
    [2 * 3_600_000 + 5 * 60_000 + 59_000, "2 h 5 min"],
    [86_400_000, "1 d"],
    [3 * 86_400_000 + 4 * 3_600_000, "3 d 4 h"],
  ])("%i ms -> %s", (ms, want) => {
    expect(formatDuration(ms)).toBe(want);
  });

  it("reads negative and invalid spans as 0 s", () => {
    expect(formatDuration(-5000)).toBe("0 s");
    expect(formatDuration(NaN)).toBe("0 s");
  });
});

describe("ageChangesIn", () => {
  it.each([
    [0, 1_000],
    [59_500, 500],
    [60_000, 60_000],
    [3_599_999, 1],
    [3_600_000, 3_600_000],
    [86_400_000 + 5, 86_400_000 - 5],
  ])("%i ms -> next change in %i ms", (ms, want) => {
    const wait = ageChangesIn(ms);
    expect(wait).toBe(want);
    expect(formatAge(ms + wait - 1)).toBe(formatAge(ms));
    expect(formatAge(ms + wait)).not.toBe(formatAge(ms));
  });
});

describe("durationChangesIn", () => {
  // Each case: the delay, and that the text is the same just before it and
  // different at it. Per second in the first minute, then per minute, then
  // per hour after a day.
  it.each([
    [0, 1_000],
    [12_400, 600],
    [59_000, 1_000],
    [60_000, 60_000],
    [192_000, 48_000],
    [3_599_999, 1],
    [2 * 3_600_000 + 5 * 60_000 + 59_000, 1_000],
    [86_400_000, 3_600_000],
    [3 * 86_400_000 + 4 * 3_600_000 + 90_000, 3_510_000],
  ])("%i ms -> next change in %i ms", (ms, want) => {
    const wait = durationChangesIn(ms);
    expect(wait).toBe(want);
    expect(formatDuration(ms + wait - 1)).toBe(formatDuration(ms));
    expect(formatDuration(ms + wait)).not.toBe(formatDuration(ms));
  });

  it("waits for a skewed clock to reach 1s, and has nothing to wait for without a time", () => {
    expect(durationChangesIn(-5_000)).toBe(6_000);
    expect(formatDuration(-5_000 + 6_000)).toBe("1 s");
    expect(durationChangesIn(NaN)).toBeNaN();
  });
});

describe("formatSpan", () => {
  // Go's human.Duration says the same (platform/human): never "3m0s".
  it.each([
    [0, "0 ms"],
    [100, "100 ms"],
    [5_000, "5 s"],
    [180_000, "3 min"],
    [90_000, "1 min 30 s"],
    [3_605_000, "1 h"],
    [2 * 3_600_000 + 5 * 60_000 + 7_000, "2 h 5 min"],
    [7 * 86_400_000, "7 d"],
    [-2_000, "-2 s"],
  ])("%i ms -> %s", (ms, want) => expect(formatSpan(ms)).toBe(want));
});

describe("formatAge", () => {
  it.each([
    [45_000, "45 s"],
    [120_000, "2 min"],
    [179_000, "2 min"],
    [3 * 3_600_000, "3 h"],
    [50 * 3_600_000, "2 d"],
  ])("%i ms -> %s", (ms, want) => expect(formatAge(ms)).toBe(want));
});

describe("formatUptime", () => {
  const now = Date.parse("2024-05-01T10:03:14Z");
  it("counts from ready_at when ready", () => {
    expect(formatUptime({ state: "ready", started_at: "2024-05-01T10:00:00Z", ready_at: "2024-05-01T10:00:02Z" }, now)).toBe("up 3 min");
  });
  it("counts from started_at while starting", () => {
    expect(formatUptime({ state: "starting", started_at: "2024-05-01T10:03:00Z" }, now)).toBe("starting for 14 s");
  });
  it("is empty for stopped and failed backends and missing times", () => {
    expect(formatUptime({ state: "stopped", started_at: "2024-05-01T10:00:00Z" }, now)).toBe("");
    expect(formatUptime({ state: "failed", ready_at: "2024-05-01T10:00:00Z" }, now)).toBe("");
    expect(formatUptime({ state: "ready" }, now)).toBe("");
  });
  it("is empty for an attached backend, whose age is not ours to know", () => {
    expect(formatUptime({ state: "external", started_at: "2024-05-01T10:03:00Z" }, now)).toBe("");
  });
  it("treats Go's zero time as missing", () => {
    expect(parseTime("0001-01-01T00:00:00Z")).toBeNaN();
    expect(formatUptime({ state: "ready", ready_at: "0001-01-01T00:00:00Z" }, now)).toBe("");
  });
});

describe("formatBytes", () => {
  it.each([
    [0, "0 B"],
    [512, "512 B"],
    [1023, "1023 B"],
    [1024, "1.0 KB"],
    [1536, "1.5 KB"],
    [38.2 * 1024 * 1024, "38.2 MB"],
    [120 * 1024 * 1024, "120 MB"],
    [1023.97 * 1024, "1.0 MB"],
    [1.5 * 1024 ** 3, "1.5 GB"],
    [2 * 1024 ** 4, "2.0 TB"],
  ])("%d -> %s", (n, want) => expect(formatBytes(n)).toBe(want));

  it("shows a dash for nonsense", () => {
    expect(formatBytes(-1)).toBe("—");
    expect(formatBytes(NaN)).toBe("—");
  });
});

describe("shellJoin", () => {
  it("leaves plain words alone", () => {
    expect(shellJoin(["hermes", "serve", "--port", "0", "--host=127.0.0.1", "/a/b.db"])).toBe("hermes serve --port 0 --host=127.0.0.1 /a/b.db");
  });
  it("quotes what a shell would read differently", () => {
    expect(shellQuote("")).toBe("''");
    expect(shellQuote("two words")).toBe("'two words'");
    expect(shellQuote("$HOME")).toBe("'$HOME'");
    expect(shellQuote("~/x")).toBe("'~/x'");
    expect(shellQuote("a*")).toBe("'a*'");
    expect(shellQuote('say "hi"')).toBe(`'say "hi"'`);
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
  });
  it("matches Go's JoinCommand on a mixed command", () => {
    expect(shellJoin(["hermes", "serve", "--title", "Hermes (default)", "--note", "it's", ""])).toBe(
      `hermes serve --title 'Hermes (default)' --note 'it'\\''s' ''`,
    );
  });
  it("round-trips through SplitCommand's rules", () => {
    const cases = [
      ["a", "b c", "", "it's", 'q"uote', "back\\slash", "tab\tnew\nline", "$(x)", "#c", "x;y|z&"],
      ["only"],
      ["''", "'"],
    ];
    for (const argv of cases) expect(split(shellJoin(argv))).toEqual(argv);
  });
  it("quotes as Go's syscall.EscapeArg when the engine runs on Windows", () => {
    setQuoting("windows");
    try {
      expect(shellJoin([`C:\\Users\\O'Brien\\hermes.exe`, "serve"])).toBe(`C:\\Users\\O'Brien\\hermes.exe serve`);
      expect(shellJoin([`C:\\Program Files\\Hermes\\hermes.exe`, ""])).toBe(`"C:\\Program Files\\Hermes\\hermes.exe" ""`);
      expect(shellQuote(`C:\\dir with space\\`)).toBe(`"C:\\dir with space\\\\"`);
      expect(shellQuote(`say "hi"`)).toBe(`"say \\"hi\\""`);
      expect(shellQuote(`a\\"b`)).toBe(`a\\\\\\"b`);
    } finally {
      setQuoting("posix");
    }
  });
  it("handles missing argv", () => {
    expect(shellJoin(null)).toBe("");
    expect(shellJoin([])).toBe("");
  });
});

describe("small helpers", () => {
  it("formats counts with separators", () => {
    expect(formatCount(0)).toBe("0");
    expect(formatCount(999)).toBe("999");
    expect(formatCount(1234567)).toBe("1,234,567");
  });
  it("pluralizes", () => {
    expect(plural(1, "backend")).toBe("1 backend");
    expect(plural(2, "backend")).toBe("2 backends");
    expect(plural(0, "process", "processes")).toBe("0 processes");
  });
  it("gets a message out of any rejection", () => {
    expect(errorMessage("boom")).toBe("boom");
    expect(errorMessage(new Error("bad input"))).toBe("bad input");
    expect(errorMessage({ message: "from object" })).toBe("from object");
    expect(errorMessage(undefined)).toBe("Something went wrong");
    expect(errorMessage("  ")).toBe("Something went wrong");
  });
  it("truncates with an ellipsis", () => {
    expect(truncate("abcdef", 10)).toBe("abcdef");
    expect(truncate("abcdef", 4)).toBe("abc…");
  });
});

describe("formatClockTime", () => {
  const at = new Date(2024, 10, 30, 9, 41, 59).getTime(); // local time
  it("reads as the local time of day while it is today", () => {
    expect(formatClockTime(at, at)).toBe("09:41");
    expect(formatClockTime(at, new Date(2024, 10, 30, 23, 59, 59, 999).getTime())).toBe("09:41");
  });
  it("gains the date once it is not today", () => {
    expect(formatClockTime(at, new Date(2024, 11, 1, 0, 0).getTime())).toBe("Nov 30 09:41");
    expect(formatClockTime(at, new Date(2023, 10, 30, 12, 0).getTime())).toBe("Nov 30 09:41"); // a clock set back
  });
  it("reads as nothing for a missing time", () => {
    expect(formatClockTime(NaN, at)).toBe("");
  });
});

describe("clockTimeChangesIn", () => {
  const at = new Date(2024, 10, 30, 9, 41).getTime();
  it("waits until the next local midnight while the time is today", () => {
    expect(clockTimeChangesIn(at, new Date(2024, 10, 30, 23, 59, 30).getTime())).toBe(30_000);
    expect(clockTimeChangesIn(at, at)).toBe(new Date(2024, 11, 1).getTime() - at);
  });
  it("never, once the date shows, or for a missing time", () => {
    expect(clockTimeChangesIn(at, new Date(2024, 11, 1, 0, 0).getTime())).toBeNaN();
    expect(clockTimeChangesIn(NaN, at)).toBeNaN();
  });
});
