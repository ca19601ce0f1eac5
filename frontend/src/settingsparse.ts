// Reading what is typed in the settings' text boxes as Go reads it: a
// duration as time.ParseDuration, a command line as the engine's
// platform splits it, a ready pattern's capture groups. Pure functions.

import { currentQuoting } from "./format";

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  "µs": 1e-3,
  "μs": 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/**
 * Parses a Go duration ("5s", "3m0s", "1h30m", "1.5s", "-2s", "0") to
 * milliseconds; null when Go's time.ParseDuration would reject it.
 */
export function parseGoDuration(input: string): number | null {
  let s = input.trim();
  if (s === "") return null;
  let sign = 1;
  if (s[0] === "-" || s[0] === "+") {
    if (s[0] === "-") sign = -1;
    s = s.slice(1);
  }
  if (s === "0") return 0;
  if (s === "") return null;
  const re = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;
  let total = 0;
  let pos = 0;
  while (pos < s.length) {
    re.lastIndex = pos;
    const m = re.exec(s);
    if (!m) return null;
    total += parseFloat(m[1]) * UNIT_MS[m[2]];
    pos = re.lastIndex;
  }
  return sign * total;
}

/** Go's cmdline errors (ErrOpenSingleQuote...), as a sentence. */
const COMMAND_ERRORS = {
  single: "A ' quote is not closed",
  double: 'A " quote is not closed',
  backslash: "It ends with a backslash",
};

/** Mirrors Go's cmdline.Split on the engine's platform; returns an error or null. */
export function commandError(line: string): string | null {
  if (currentQuoting() === "windows") return windowsCommandError(line);
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) return COMMAND_ERRORS.single;
      i = end;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < line.length && line[j] !== '"'; j++) {
        if (line[j] === "\\" && j + 1 < line.length && (line[j + 1] === '"' || line[j + 1] === "\\")) j++;
      }
      if (j >= line.length) return COMMAND_ERRORS.double;
      i = j;
    } else if (c === "\\") {
      if (i + 1 >= line.length) return COMMAND_ERRORS.backslash;
      i++;
    }
  }
  return null;
}

/**
 * Windows' rules (CommandLineToArgvW): only a "double" quote quotes, an odd
 * run of backslashes before one makes it literal; an apostrophe or a
 * backslash is just a character. An unclosed quote is the one error.
 */
function windowsCommandError(line: string): string | null {
  let quoted = false;
  let slashes = 0;
  for (const c of line) {
    if (c === '"' && slashes % 2 === 0) quoted = !quoted;
    slashes = c === "\\" ? slashes + 1 : 0;
  }
  return quoted ? COMMAND_ERRORS.double : null;
}

/**
 * Number of capture groups in a pattern, or null when JavaScript cannot
 * compile it. Go (RE2) syntax mostly matches; the Go-only spellings that
 * ready patterns use are translated first, so a null here is not proof the
 * pattern is wrong; the Go side has the last word.
 */
export function captureGroups(pattern: string): number | null {
  let src = pattern.replace(/\(\?P</g, "(?<");
  const flags = /^\(\?([imsU]+)\)/.exec(src);
  let jsFlags = "";
  if (flags) {
    src = src.slice(flags[0].length);
    if (flags[1].includes("i")) jsFlags += "i";
    if (flags[1].includes("m")) jsFlags += "m";
    if (flags[1].includes("s")) jsFlags += "s";
  }
  try {
    const m = new RegExp(src + "|", jsFlags).exec("");
    return m ? m.length - 1 : 0;
  } catch {
    return null;
  }
}
