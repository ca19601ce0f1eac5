import { h } from "../dom";
import { clockTime } from "../clock";
import { parseTime } from "../format";
import { currentReport, instanceSummary, shownNotices, TABS, unseenReapCount, type AppState, type Tab } from "../state";
import { actionStatus, banner, button, emptyState, icon, inlineError, logo } from "../ui";
import { hasPage, openHermesButton } from "./backends";
import { updateRow } from "./update";

function navCount(s: AppState, tab: Tab): HTMLElement | null {
  const bs = s.status?.backends ?? [];
  switch (tab) {
    case "backends": {
      const failed = bs.filter((b) => b.state === "failed").length;
      return failed ? h("span.nav-count.tone-bad", { title: `${failed} failed` }, String(failed)) : null;
    }
    case "tree": {
      const warns = bs.reduce((n, b) => n + (b.tree?.warnings?.length ?? 0), 0);
      return warns ? h("span.nav-count.tone-busy", { title: `${warns} warnings` }, String(warns)) : null;
    }
    case "reap": {
      const n = unseenReapCount(s);
      return n ? h("span.nav-count", { title: currentReport(s)?.dry_run ? `${n} would be reaped` : `${n} reaped` }, String(n)) : null;
    }
    default:
      return null;
  }
}

export function header(s: AppState): HTMLElement {
  const sum = instanceSummary(s.load.kind === "ready" ? s.status : null);
  return h(
    "header.topbar",
    null,
    h("div.brand", null, logo(26), h("span.brand-name", null, "Hermes Desktop")),
    h(
      "div.glance",
      { role: "status", "aria-live": "polite" },
      s.load.kind === "error"
        ? h("span.glance-pill.tone-bad", null, h("span.dot"), "Not connected")
        : h(`span.glance-pill.tone-${sum.tone}`, { class: sum.tone === "busy" ? "pulse" : null }, h("span.dot"), sum.text),
      s.preview ? h("span.preview-chip", { title: "No app engine: this page shows simulated data" }, "Preview · simulated data") : null,
    ),
    h(
      "div.topbar-actions",
      null,
      inlineError(s.errors.get("quit")),
      actionStatus(s.errors.get("topbar"), s.notes.get("topbar")),
      // The Backends page has its own in its header; one is enough in view.
      s.load.kind === "ready" && s.tab !== "backends" && hasPage(s) ? openHermesButton(s, "topbar") : null,
      button("Quit", { action: "quit", icon: "power", variant: "ghost", busy: s.busy.has("quit"), busyLabel: "Quitting…", title: "Stop all backends and quit" }),
    ),
  );
}

export function sidebar(s: AppState, now: number): HTMLElement {
  const inst = s.status?.instance;
  const started = parseTime(inst?.started_at);
  return h(
    "nav.sidebar",
    { "aria-label": "Sections" },
    h(
      "ul.nav",
      { role: "tablist", "aria-orientation": "vertical" },
      ...TABS.map((t) =>
        h(
          "li",
          null,
          h(
            "a.nav-item",
            {
              href: `#${t.id}`,
              role: "tab",
              "aria-selected": s.tab === t.id ? "true" : "false",
              "aria-current": s.tab === t.id ? "page" : null,
              class: s.tab === t.id ? "active" : null,
              "data-action": "tab",
              "data-tab": t.id,
            },
            icon(t.id, 17),
            h("span.nav-label", null, t.label),
            navCount(s, t.id),
          ),
        ),
      ),
    ),
    inst
      ? h(
          "div.instance",
          null,
          h("div.instance-row", null, h("span", null, "App PID"), h("span.mono", null, String(inst.pid))),
          inst.version ? h("div.instance-row", null, h("span", null, "Version"), h("span.mono", null, inst.version)) : null,
          Number.isFinite(started) ? h("div.instance-row", null, h("span", null, "Started"), clockTime("span.started", started, now)) : null,
          updateRow(s, now),
        )
      : null,
  );
}

export function loadingView(): HTMLElement {
  return h(
    "section.page.page-center",
    null,
    h("div.loading", null, h("span.spinner.spinner-lg"), h("div.loading-title", null, "Connecting to Hermes…"), h("p.muted", null, "Reading the state of your backends.")),
  );
}

export function errorView(message: string, retrying: boolean): HTMLElement {
  return h(
    "section.page.page-center",
    null,
    emptyState("warning", "Hermes Desktop could not read its status", message, [
      button("Retry", { action: "retry-status", icon: "restart", variant: "primary", busy: retrying, busyLabel: "Retrying…" }),
    ]),
  );
}

/** The offer to switch to the version a package upgrade installed. */
function installedUpdateBanner(s: AppState): HTMLElement {
  const err = inlineError(s.errors.get("apply-installed-update"));
  return banner(
    "info",
    [h("strong", null, "Hermes Desktop was updated."), " Restart to apply — your backends keep running.", ...(err ? [err] : [])],
    {
      key: "apply-installed-update",
      actions: [
        button("Restart to apply", {
          action: "apply-installed-update",
          variant: "primary",
          size: "sm",
          icon: "restart",
          busy: s.busy.has("apply-installed-update"),
          busyLabel: "Restarting…",
          title: "Switch to the new version; the backends keep running",
        }),
      ],
    },
  );
}

/** Banners shown above every tab: a lost connection, an update to apply,
 *  engine notices. */
export function globalBanners(s: AppState): HTMLElement[] {
  const out: HTMLElement[] = [];
  if (s.refreshError) {
    out.push(banner("error", [h("strong", null, "Lost contact with the app. "), s.refreshError], { key: "refresh-error", actions: [button("Retry", { action: "retry-status", size: "sm" })] }));
  }
  if (s.status?.instance.restart_to_apply) out.push(installedUpdateBanner(s));
  if (s.tab !== "settings") {
    for (const n of shownNotices(s.status)) {
      if (s.dismissedNotices.has(n)) continue;
      out.push(banner("warn", n, { key: `notice:${n}`, dismissAction: "dismiss-notice", dismissKey: n }));
    }
  }
  return out;
}
