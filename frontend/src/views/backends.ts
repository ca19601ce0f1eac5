import { h } from "../dom";
import { formatBytes, formatUptime, plural, shellJoin } from "../format";
import { stateLabel, stateTone } from "../reasons";
import type { AppState } from "../state";
import type { BackendStatus } from "../types";
import { badge, button, emptyState, icon, inlineError, pageHeader } from "../ui";

function busy(s: AppState, action: string, name: string): boolean {
  return s.busy.has(`${action}:${name}`);
}

function fact(label: string, value: Node | string, mono = false): HTMLElement {
  return h("div.fact", null, h("dt", null, label), h(mono ? "dd.mono" : "dd", null, value));
}

export function backendCard(b: BackendStatus, s: AppState, now: number): HTMLElement {
  const tone = stateTone(b.state);
  const pulsing = b.state === "starting" || b.state === "restarting";
  const running = b.state === "ready" || b.state === "starting" || b.state === "restarting";
  const anyBusy = ["restart", "start", "stop"].some((a) => busy(s, a, b.name));
  const uptime = formatUptime(b, now);

  const url = b.url
    ? h(
        "button.link",
        { type: "button", "data-action": "open-url", "data-url": b.url, title: `Open ${b.url} in your browser` },
        h("span.mono", null, b.url),
        icon("external", 13),
      )
    : h("span.muted", null, b.port > 0 ? "waiting for ready…" : "—");

  const actions: HTMLElement[] = [];
  if (running) {
    actions.push(
      button("Restart", { action: "restart", icon: "restart", size: "sm", busy: busy(s, "restart", b.name), busyLabel: "Restarting…", disabled: anyBusy, attrs: { "data-name": b.name } }),
      button("Stop", { action: "stop", icon: "stop", size: "sm", busy: busy(s, "stop", b.name), busyLabel: "Stopping…", disabled: anyBusy, attrs: { "data-name": b.name } }),
    );
  } else if (b.state === "stopped") {
    actions.push(
      button("Start", { action: "start", icon: "play", size: "sm", variant: "primary", busy: busy(s, "start", b.name), busyLabel: "Starting…", disabled: anyBusy, attrs: { "data-name": b.name } }),
    );
  }

  let failure: HTMLElement | null = null;
  if (b.state === "failed") {
    const tail = (b.log_tail ?? []).slice(-12);
    failure = h(
      "div.failure",
      null,
      h("div.failure-head", null, icon("warning", 18), h("div", null, h("div.failure-title", null, "This backend stopped and could not recover"), h("p.failure-msg", null, b.last_error || "No error message was recorded."))),
      tail.length ? h("pre.log-tail", { "aria-label": "Last log lines" }, tail.join("\n")) : null,
      h(
        "div.failure-actions",
        null,
        button("Try again", { action: "restart", icon: "restart", variant: "primary", busy: busy(s, "restart", b.name), busyLabel: "Starting…", disabled: anyBusy, attrs: { "data-name": b.name } }),
        button("View logs", { action: "show-logs", icon: "logs", variant: "ghost", attrs: { "data-name": b.name } }),
      ),
    );
  } else if (b.last_error && b.state === "restarting") {
    failure = h("p.restart-note", null, icon("info", 14), h("span", null, `Last exit: ${b.last_error}`));
  }

  const stat = (label: string, value: string | Node, mono = false) => fact(label, value, mono);

  // Why it was last restarted. A crash while restarting is already shown as
  // "Last exit" above; the same words need not appear twice.
  const why = (b.last_restart ?? "").trim();
  const restartNote =
    (b.restarts ?? 0) > 0 && why && !(failure && why === (b.last_error ?? "").trim())
      ? h(
          "p.last-restart",
          { title: why },
          icon("restart", 13),
          h("span.last-restart-label", null, "Last restart:"),
          h("span.last-restart-text", null, why),
        )
      : null;

  const warnings = running ? (b.tree?.warnings ?? []) : [];
  const warnChip = warnings.length
    ? h(
        "button.chip.chip-warn.warn-chip",
        {
          type: "button",
          "data-action": "tab",
          "data-tab": "tree",
          title: `${warnings.map((w) => w.message).join("\n")}\n\nOpen the Process tree`,
          "aria-label": `${plural(warnings.length, "process warning")}: open the Process tree`,
        },
        icon("warning", 12),
        plural(warnings.length, "warning"),
      )
    : null;

  return h(
    `article.card.backend.state-${b.state}`,
    { "data-key": `backend:${b.name}`, "aria-label": `Backend ${b.name}` },
    h(
      "header.card-head",
      null,
      h(
        "div.card-title",
        null,
        h("h2", null, b.name),
        badge(tone, stateLabel(b.state), { pulse: pulsing }),
        uptime ? h("span.uptime", null, uptime) : null,
        warnChip,
      ),
      h("div.card-actions", null, ...actions),
    ),
    inlineError(s.errors.get(`backend:${b.name}`)),
    failure,
    h(
      "dl.facts",
      null,
      stat("Local URL", url),
      stat("PID", b.pid > 0 ? String(b.pid) : "—", b.pid > 0),
      stat("Port", b.port > 0 ? String(b.port) : "—", b.port > 0),
      stat("Restarts", String(b.restarts ?? 0)),
      stat("Processes", b.tree && running ? String(b.tree.count) : "—"),
      stat("Memory", b.tree && running ? formatBytes(b.tree.rss_bytes) : "—"),
    ),
    restartNote,
    h("div.command", null, h("div.command-label", null, "Command"), h("code.command-text", null, shellJoin(b.command) || "—")),
  );
}

export function backendsView(s: AppState, now: number): HTMLElement {
  const bs = s.status?.backends ?? [];
  const multi = bs.length > 1;
  const head = pageHeader(
    "Backends",
    bs.length ? `${plural(bs.length, "backend")} supervised by this app` : null,
    multi
      ? button("Restart all", { action: "restart-all", icon: "restart", busy: s.busy.has("restart:"), busyLabel: "Restarting…" })
      : null,
  );
  if (bs.length === 0) {
    return h(
      "section.page",
      null,
      head,
      emptyState("backends", "No backend running", "Hermes Desktop has no backend configured. Check the command in Settings, then restart the app."),
    );
  }
  return h("section.page", null, head, inlineError(s.errors.get("backend:")), h("div.cards", null, ...bs.map((b) => backendCard(b, s, now))));
}
