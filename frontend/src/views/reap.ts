import { h } from "../dom";
import { formatDateTime, shellJoin, truncate } from "../format";
import { cgroupRows, confirmQuestion, countDecisions, nothingToReapMessage, reapSummary, remoteRows, sortedDecisions, wouldReap } from "../reap";
import { actionLabel, actionTone, reasonLabel } from "../reasons";
import { currentReport, type AppState } from "../state";
import type { ReapDecision, ReapReport, Wire } from "../types";
import { badge, banner, button, emptyState, icon, pageHeader } from "../ui";

const CMD_MAX = 72;

export function decisionsTable(decisions: readonly ReapDecision[]): HTMLElement {
  return h(
    "div.table-wrap",
    null,
    h(
      "table.reap-table",
      null,
      h("thead", null, h("tr", null, h("th.col-pid", null, "PID"), h("th", null, "Action"), h("th", null, "Why"), h("th", null, "Command"))),
      h(
        "tbody",
        null,
        ...decisions.map((d) => {
          const cmd = shellJoin(d.cmdline);
          return h(
            "tr",
            { "data-key": `d${d.pid}:${d.action}` },
            h("td.mono.col-pid", null, String(d.pid)),
            h("td", null, badge(actionTone(d.action), actionLabel(d.action), { dot: false })),
            h("td.col-why", null, h("div.reason", { title: d.reason }, reasonLabel(d.reason)), d.detail ? h("div.detail", null, d.detail) : null),
            h("td.col-cmd", null, h("code.mono.cmd-trunc", { title: cmd }, truncate(cmd, CMD_MAX) || "—")),
          );
        }),
      ),
    ),
  );
}

/**
 * What the remote reaps did on other hosts (before each start there), the
 * host named on each row: its PIDs are that host's, never this machine's.
 */
export function remoteTable(rows: readonly Wire.ReapRemoteDecision[]): HTMLElement {
  return h(
    "div.table-wrap",
    null,
    h(
      "table.reap-table.remote-reap-table",
      null,
      h("thead", null, h("tr", null, h("th", null, "Host"), h("th.col-pid", null, "Remote PID"), h("th", null, "Action"), h("th", null, "Why"))),
      h(
        "tbody",
        null,
        ...rows.map((d) =>
          h(
            "tr",
            { "data-key": `r${d.host}:${d.ownership_id}` },
            h("td.mono", null, d.host),
            h("td.mono.col-pid", null, d.pid > 0 ? String(d.pid) : "—"),
            h("td", null, badge(actionTone(d.action), actionLabel(d.action), { dot: false })),
            h("td.col-why", null, h("div.detail", { title: `session ${d.ownership_id}, ${formatDateTime(d.at)}` }, d.reason)),
          ),
        ),
      ),
    ),
  );
}

function reportCard(r: ReapReport, title: string): HTMLElement {
  const ds = sortedDecisions(r);
  const cgs = cgroupRows(r);
  const remote = remoteRows(r);
  return h(
    "article.card",
    { "data-key": `report:${title}` },
    h(
      "header.card-head",
      null,
      h("div.card-title", null, h("h2", null, title), r.dry_run ? badge("busy", "Dry run", { dot: false }) : null),
      h("span.muted.small", null, formatDateTime(r.started_at)),
    ),
    h("p.summary", null, reapSummary(r)),
    ds.length ? decisionsTable(ds) : h("p.muted", null, (r.cgroups ?? []).length ? "No candidate processes outside backend cgroups." : "No candidate processes were found."),
    cgs.length ? h("h3.subhead", null, "In backend cgroups") : null,
    cgs.length ? decisionsTable(cgs) : null,
    // An empty cgroup has no process row: said on its own, or the page
    // said nothing was found while status listed it.
    ...(r.cgroups ?? [])
      .filter((c) => (c.processes ?? []).length === 0)
      .map((c) => h("p.muted.small", null, `An empty backend cgroup (${c.cgroup}) was ${c.action}: ${c.detail || c.reason}`)),
    remote.length ? h("h3.subhead", null, "On remote hosts") : null,
    remote.length ? remoteTable(remote) : null,
  );
}

function flowPanel(s: AppState): HTMLElement | null {
  const f = s.reapFlow;
  switch (f.kind) {
    case "idle":
    case "scanning":
      return null;
    case "confirm":
    case "reaping": {
      const list = wouldReap(f.scan);
      return h(
        "div.confirm",
        { role: "region", "aria-label": "Confirm reap" },
        h(
          "div.confirm-head",
          null,
          icon("warning", 20),
          h(
            "div",
            null,
            h("div.confirm-title", null, confirmQuestion(f.scan)),
            h("p.confirm-sub", null, "The scan found these left over from an earlier run. Nothing is stopped until you confirm."),
          ),
        ),
        decisionsTable(list),
        h(
          "div.confirm-actions",
          null,
          button("Cancel", { action: "reap-cancel", disabled: f.kind === "reaping" }),
          button(list.length === 1 ? "Reap 1 process" : `Reap ${list.length} processes`, {
            action: "reap-confirm",
            variant: "danger",
            busy: f.kind === "reaping",
            busyLabel: "Reaping…",
          }),
        ),
      );
    }
    case "nothing":
      return banner("ok", [h("strong", null, "Nothing to reap. "), nothingToReapMessage(f.scan)], { dismissAction: "reap-cancel" });
    case "done": {
      const c = countDecisions(f.result);
      const text = c.reaped === 1 ? "1 process was stopped." : `${c.reaped} processes were stopped.`;
      return banner(c.failed ? "warn" : "ok", [h("strong", null, "Done. "), text, c.failed ? ` ${c.failed} could not be stopped; see below.` : ""], { dismissAction: "reap-cancel" });
    }
    case "error":
      return banner("error", [h("strong", null, f.scan ? "Reaping failed: " : "Scan failed: "), f.message], { dismissAction: "reap-cancel" });
  }
}

export function reapView(s: AppState): HTMLElement {
  const f = s.reapFlow;
  const scanning = f.kind === "scanning";
  const head = pageHeader(
    "Boot reap",
    "Processes left over from earlier runs that Hermes Desktop cleaned up, or left alone, and why.",
    button("Scan now", {
      action: "reap-scan",
      icon: "scan",
      variant: "primary",
      busy: scanning,
      busyLabel: "Scanning…",
      disabled: f.kind === "reaping" || f.kind === "confirm",
      // No title: its tooltip stayed up over what the scan opens below it.
    }),
  );
  const r = currentReport(s);
  const title = r ? (r === s.status?.boot_reap ? "At startup" : r.dry_run ? "Last scan" : "Last reap") : "";
  return h(
    "section.page",
    null,
    head,
    flowPanel(s),
    r
      ? reportCard(r, title)
      : emptyState("reap", "No reap has run yet", "The reaper runs when the app starts. Use Scan now to check for leftover processes; nothing is stopped until you confirm."),
  );
}
