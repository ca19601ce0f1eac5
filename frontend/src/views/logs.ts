import { h } from "../dom";
import { formatClock, formatCount } from "../format";
import { filterLines, lineKey } from "../logbuffer";
import type { AppState } from "../state";
import type { LogLine } from "../types";
import { actionStatus, button, emptyState, icon, pageHeader } from "../ui";

/** The text with each case-insensitive match of needle wrapped in <mark>. */
export function highlight(text: string, needle: string): (string | HTMLElement)[] {
  const n = needle.trim().toLowerCase();
  if (!n) return [text];
  const lower = text.toLowerCase();
  const out: (string | HTMLElement)[] = [];
  let at = 0;
  for (let i = lower.indexOf(n); i >= 0; i = lower.indexOf(n, i + n.length)) {
    if (i > at) out.push(text.slice(at, i));
    out.push(h("mark", null, text.slice(i, i + n.length)));
    at = i + n.length;
  }
  if (at < text.length) out.push(text.slice(at));
  return out;
}

/**
 * How a line reads: stderr is where many servers write their ordinary log
 * (Python's http.server its access lines, our watchdog its level=INFO
 * records), so only a stderr line that is not plainly such a record is
 * shown as an error ("stderr"); those are "stderr-info", shown plain.
 */
export function lineTone(l: LogLine): string {
  if (l.stream !== "stderr") return l.stream;
  const t = l.text;
  if (/\blevel=(INFO|DEBUG)\b/.test(t) || /^(INFO|DEBUG)[:\s]/.test(t)) return "stderr-info";
  // An access line: "127.0.0.1 - - [date] \"GET / HTTP/1.1\" 200 -", a 2xx/3xx status.
  if (/"(GET|HEAD|POST|PUT|DELETE|PATCH|OPTIONS) [^"]* HTTP\/[\d.]+" [23]\d\d\b/.test(t)) return "stderr-info";
  return "stderr";
}

export function logRow(l: LogLine, needle: string, showBackend: boolean): HTMLElement {
  return h(
    `div.log-line.stream-${lineTone(l)}`,
    { "data-key": lineKey(l) },
    h("span.log-time", { title: l.time }, formatClock(l.time)),
    showBackend ? h("span.log-backend", null, l.backend) : null,
    h("span.log-text", null, ...highlight(l.text, needle)),
  );
}

export function visibleLogLines(s: AppState): LogLine[] {
  return filterLines(s.logs.lines(), { text: s.logFilter, backend: s.logBackend });
}

/** The backends the Logs tab offers to filter by: configured, then any other with lines. */
export function logBackendNames(s: AppState): string[] {
  const names = (s.status?.backends ?? []).map((b) => b.name);
  for (const l of s.logs.lines()) if (!names.includes(l.backend)) names.push(l.backend);
  return names;
}

/** "12 lines", or "3 of 12 lines" under a filter. */
export function logCountText(s: AppState, visible: readonly LogLine[]): string {
  const total = s.logs.size;
  const lines = `${formatCount(total)} ${total === 1 ? "line" : "lines"}`;
  return s.logFilter || s.logBackend ? `${formatCount(visible.length)} of ${lines}` : lines;
}

/**
 * What the Logs tab shows besides its rows and count. While it stays the
 * same, new lines need only those two updated (App.updateLogs).
 */
export function logChrome(s: AppState, visible: readonly LogLine[]): string {
  const body = s.logs.size === 0 ? "empty" : visible.length === 0 ? "none" : "rows";
  return [body, s.logFollow ? "follow" : `unseen ${s.logUnseen}`, ...logBackendNames(s)].join("\u0000");
}

export function logsView(s: AppState, visible: LogLine[]): HTMLElement {
  const names = logBackendNames(s);
  const total = s.logs.size;

  const filter = h(
    "label.search",
    null,
    icon("search", 15),
    h("span.sr-only", null, "Filter log lines"),
    h("input", {
      type: "search",
      placeholder: "Filter lines…",
      value: s.logFilter,
      "data-input": "log-filter",
      spellcheck: "false",
      autocomplete: "off",
    }),
  );
  const select =
    names.length > 1
      ? h(
          "label.select",
          null,
          h("span.sr-only", null, "Backend"),
          h(
            "select",
            { "data-input": "log-backend", "data-value": s.logBackend },
            h("option", { value: "", selected: s.logBackend === "" }, "All backends"),
            ...names.map((n) => h("option", { value: n, selected: s.logBackend === n }, n)),
          ),
        )
      : null;
  const count = h("span.muted.small.log-count", null, logCountText(s, visible));

  let body: HTMLElement;
  if (total === 0) {
    body = emptyState("logs", "No log lines yet", "Output from the backends appears here as it is written.");
  } else if (visible.length === 0) {
    body = emptyState("search", "No matching lines", s.logFilter ? `Nothing contains “${s.logFilter.trim()}”.` : "This backend has not written anything yet.", [
      button("Clear filter", { action: "clear-log-filter", size: "sm" }),
    ]);
  } else {
    body = h(
      "div.log-frame",
      { "data-key": "log-frame" },
      // Rows are kept up to date incrementally by the app (see syncLogRows),
      // not by the morph: thousands of lines arrive several times a second.
      h("div.log-scroll", { "data-morph-skip": "", tabindex: "0", role: "log", "aria-label": "Log lines", "aria-live": "off" }, h("div.log-lines")),
      s.logFollow
        ? null
        : h(
            "button.jump",
            { type: "button", "data-action": "jump-latest" },
            icon("down", 14),
            s.logUnseen > 0 ? `${formatCount(s.logUnseen)} new · Jump to latest` : "Jump to latest",
          ),
    );
  }

  return h(
    "section.page.page-fill",
    null,
    pageHeader(
      "Logs",
      null,
      actionStatus(s.errors.get("logs"), s.notes.get("logs")),
      button("Save a diagnostic report…", { action: "save-report", busy: s.busy.has("save-report"), busyLabel: "Saving…" }),
      button("Open log folder", { action: "open-log-folder", icon: "folder", busy: s.busy.has("open-log-folder"), busyLabel: "Opening…" }),
    ),
    s.reportPath
      ? h(
          "div.report-saved",
          { role: "status" },
          h("span", null, "Diagnostic report saved to ", h("code", null, s.reportPath), ". Secrets are redacted; look it over before you send it."),
          button("Show in folder", { action: "open-report-folder", icon: "folder", size: "sm", busy: s.busy.has("open-report-folder"), busyLabel: "Opening…" }),
        )
      : null,
    h("div.toolbar", null, filter, select, count),
    body,
  );
}

/**
 * Brings the rows inside a .log-lines element in line with `visible`,
 * reusing rows by key: only new lines are built, dropped ones removed.
 */
export function syncLogRows(container: HTMLElement, visible: readonly LogLine[], needle: string, showBackend: boolean): void {
  const want = new Set(visible.map(lineKey));
  const have = new Map<string, Element>();
  for (const el of Array.from(container.children)) {
    const k = el.getAttribute("data-key") ?? "";
    if (!want.has(k) || have.has(k)) el.remove();
    else have.set(k, el);
  }
  let cursor: Element | null = container.firstElementChild;
  for (const l of visible) {
    const k = lineKey(l);
    const el = have.get(k);
    if (el) {
      if (el === cursor) cursor = cursor.nextElementSibling;
      else container.insertBefore(el, cursor);
    } else {
      container.insertBefore(logRow(l, needle, showBackend), cursor);
    }
  }
}
