import { runningAge } from "../clock";
import { h } from "../dom";
import { formatBytes, formatClock, parseTime, shellJoin } from "../format";
import { sortWarnings, stateLabel, stateTone, warningTitle } from "../reasons";
import type { AppState } from "../state";
import { buildTree, duplicatePids, flattenTree } from "../tree";
import type { BackendStatus, TreeSample } from "../types";
import { badge, banner, emptyState, pageHeader } from "../ui";

/** "212 / 4,096 fds" and whether it is getting tight. */
export function fdUsage(t: TreeSample): { text: string; high: boolean } {
  const soft = t.nofile_soft;
  if (!soft || soft <= 0) return { text: `${t.fds} fds`, high: false };
  return { text: `${t.fds} / ${soft} fds`, high: t.fds / soft >= 0.8 };
}

/** "3× mimir --db x" */
export function duplicateLabel(g: { argv: string[]; count: number }): string {
  return `${g.count}× ${shellJoin(g.argv)}`;
}

/**
 * When the tree was last checked, and since when it has looked the same:
 * the window is sent a sample only when it changed (at rest, nothing is
 * sent), so the time of the sample it has is when it last changed.
 */
export function checkedText(t: TreeSample): string {
  const checked = formatClock(t.sampled_at);
  const changed = parseTime(t.changed_at);
  if (!Number.isFinite(changed) || changed >= parseTime(t.sampled_at)) return `Checked ${checked}`;
  return `Unchanged since ${formatClock(t.changed_at)}, checked ${checked}`;
}

function treeTable(b: BackendStatus, t: TreeSample, now: number): HTMLElement {
  const rows = flattenTree(buildTree(t.processes), b.pid > 0 ? b.pid : undefined);
  const dups = duplicatePids(t.duplicates);
  const soft = t.nofile_soft ?? 0;
  return h(
    "div.table-wrap",
    null,
    h(
      "table.proc-table",
      null,
      // A remote backend's PIDs are its host's: said so, never taken for one here.
      h("thead", null, h("tr", null, h("th.col-pid", null, b.host ? "Remote PID" : "PID"), h("th", null, "Command"), h("th.num", null, "Memory"), h("th.num", null, "Files"), h("th.num", null, "Age"))),
      h(
        "tbody",
        null,
        ...rows.map((r) => {
          const dup = dups.get(r.proc.pid);
          const started = parseTime(r.proc.started);
          const cmd = shellJoin(r.proc.argv);
          return h(
            "tr",
            { "data-key": `p${r.proc.pid}`, class: [dup ? "is-dup" : "", r.orphan ? "is-orphan" : ""].join(" ").trim() || null },
            h("td.mono.col-pid", null, String(r.proc.pid)),
            h(
              "td.col-cmd",
              null,
              h(
                "div.tree-cell",
                { style: `--depth:${r.depth}` },
                r.depth > 0 ? h("span.tree-guide", { "aria-hidden": "true" }, r.last ? "└" : "├") : null,
                h("span.mono.cmd", { title: cmd }, cmd || "(no command line)"),
                dup ? h("span.chip.chip-warn", { title: `${dup.count} processes share this command` }, `${dup.count}×`) : null,
                r.orphan ? h("span.chip", { title: `Parent ${r.proc.ppid} is not in this sample` }, "orphan") : null,
              ),
            ),
            h("td.num", null, formatBytes(r.proc.rss_bytes)),
            h("td.num", { class: soft > 0 && r.proc.fds / soft >= 0.8 ? "is-high" : null, title: soft > 0 ? `${r.proc.fds} of ${soft} open files` : null }, String(r.proc.fds)),
            h("td.num", { title: r.proc.started }, Number.isFinite(started) ? runningAge("span.age", started, now) : "—"),
          );
        }),
      ),
    ),
  );
}

function backendTree(b: BackendStatus, now: number): HTMLElement {
  const t = b.tree;
  const running = b.state === "ready" || b.state === "starting" || b.state === "restarting";
  const head = h(
    "header.card-head",
    null,
    h(
      "div.card-title",
      null,
      h("h2", null, b.name),
      badge(stateTone(b.state), stateLabel(b.state), { pulse: b.state === "starting" || b.state === "restarting" }),
      b.host ? h("span.chip.host-chip.mono", { title: `Sampled on ${b.host} by the watchdog there` }, `on ${b.host}`) : null,
    ),
    t ? h("span.muted.small.tree-checked", null, checkedText(t)) : null,
  );
  if (!running || b.pid <= 0) {
    return h("article.card", { "data-key": `tree:${b.name}` }, head, emptyState("tree", "No backend running", "Start the backend to see its processes."));
  }
  if (!t) {
    return h("article.card", { "data-key": `tree:${b.name}` }, head, emptyState("tree", "Not sampled yet", "The first sample arrives a few seconds after the backend starts."));
  }
  const fd = fdUsage(t);
  const totals = h(
    "div.totals",
    null,
    h("div.total", null, h("span.total-value", null, String(t.count)), h("span.total-label", null, t.count === 1 ? "process" : "processes")),
    h("div.total", null, h("span.total-value", null, formatBytes(t.rss_bytes)), h("span.total-label", null, "memory (RSS)")),
    h("div.total", { class: fd.high ? "is-high" : null }, h("span.total-value", null, fd.text.replace(/ fds$/, "")), h("span.total-label", null, "open fds")),
  );
  const warnings = sortWarnings(t.warnings ?? []).map((w, i) => {
    const title = warningTitle(w.kind);
    return banner(w.kind === "fd-pressure" ? "error" : "warn", title ? [h("strong.banner-title", null, title), h("span", null, w.message)] : w.message, {
      key: `w${i}:${w.kind}`,
    });
  });
  const dups = (t.duplicates ?? []).length
    ? h(
        "div.dups",
        null,
        h("span.dups-label", null, "Duplicates"),
        ...(t.duplicates ?? []).map((g) => h("span.chip.chip-warn.mono", { title: `PIDs ${g.pids.join(", ")}` }, duplicateLabel(g))),
      )
    : null;
  const body = (t.processes ?? []).length ? treeTable(b, t, now) : emptyState("tree", "No child processes", "The backend has not started any helper processes.");
  return h("article.card.tree-card", { "data-key": `tree:${b.name}` }, head, ...warnings, totals, dups, body);
}

export function treeView(s: AppState, now: number): HTMLElement {
  const bs = s.status?.backends ?? [];
  const head = pageHeader("Process tree", "What each backend is running, checked every few seconds.");
  if (bs.length === 0) return h("section.page", null, head, emptyState("tree", "No backend running"));
  return h("section.page", null, head, h("div.cards", null, ...bs.map((b) => backendTree(b, now))));
}
