import { h } from "../dom";
import { countdown, runningTime } from "../clock";
import { formatBytes, plural, shellJoin, shellQuote, uptimeOf } from "../format";
import { kindHelp, kindLabel, stateLabel, stateTone } from "../reasons";
import { accessWords, connectionWords, formatLatency, hostLabel } from "../remote";
import type { AppState } from "../state";
import type { BackendStatus } from "../types";
import { addBackendForm } from "./addbackend";
import { actionStatus, badge, button, emptyState, icon, inlineError, pageHeader } from "../ui";

function busy(s: AppState, action: string, name: string): boolean {
  return s.busy.has(`${action}:${name}`);
}

function fact(label: string, value: Node | string, mono = false): HTMLElement {
  return h("div.fact", null, h("dt", null, label), h(mono ? "dd.mono" : "dd", null, value));
}

/** The actions that change a backend's process; the page and copy actions
 *  run alongside them. */
const LIFECYCLE = ["restart", "start", "stop", "remove"];

/** The first fact: the page a person opens, or the API's address. */
function addressFact(b: BackendStatus): HTMLElement {
  if (b.page_url) {
    return fact("Page", h("span.selectable", { title: b.page_url }, b.page_url), true);
  }
  const where = b.url ? h("span.selectable", { title: b.url }, b.url) : h("span.muted", null, b.port > 0 ? "waiting for ready…" : "—");
  if (b.kind === "serve") {
    // Said next to the label, so the address keeps its width.
    return h(
      "div.fact",
      null,
      h("dt", null, "Address", h("span.chip.api-only", { title: "hermes serve has no page to open: Hermes clients connect to it" }, "API only")),
      h(b.url ? "dd.mono" : "dd", null, where),
    );
  }
  return fact("Address", where, !!b.url);
}

/**
 * What a backend on another host adds to its card's facts, on a row of its
 * own: the connection in words (a countdown while reconnecting), the host
 * (whole: the head's chip may be cut short), the port on the remote's
 * loopback, who there can reach it, the heartbeat's latency, the remote's
 * platform.
 * The row is there for every state of a remote backend, each value a line
 * that ellipsizes, so a connection that changes moves nothing around it.
 */
function remoteFacts(b: BackendStatus, now: number): HTMLElement[] {
  const r = b.remote;
  const c = connectionWords(r, now);
  const words = c.countdown ? countdown("span.connection-text", c.countdown, now) : h("span.connection-text", null, c.text);
  const port = r?.port ? String(r.port) : "—";
  return [
    h("div.fact.fact-connection", null, h("dt", null, "Connection"), h(`dd.conn-${c.tone}`, { title: c.title }, words)),
    fact("Host", b.host || "—", true),
    fact("Remote port", port, !!r?.port),
    accessFact(b.host || "its host", r),
    fact("Latency", r?.connection === "connected" ? formatLatency(r.latency_ms) : "—"),
    fact("Platform", r?.platform || "—", !!r?.platform),
  ];
}

/** Who on the host can reach the backend: the whole sentence, on a line that ellipsizes. */
function accessFact(host: string, r: BackendStatus["remote"]): HTMLElement {
  const a = accessWords(host, r);
  return h("div.fact.fact-access", null, h("dt", null, "Access"), h(`dd.access-${a.tone}`, { title: a.title }, a.text));
}

/** The buttons in a card's head, most used first. */
function cardActions(b: BackendStatus, s: AppState): HTMLElement[] {
  const name = b.name;
  const anyBusy = LIFECYCLE.some((a) => busy(s, a, name));
  const attrs = { "data-name": name };
  const external = b.state === "external";
  const running = b.state === "ready" || b.state === "starting" || b.state === "restarting";
  const out: HTMLElement[] = [];
  if (b.page_url) {
    const label = b.kind === "custom" && !external ? "Open page" : "Open Hermes";
    out.push(
      button(label, {
        action: "open-hermes",
        icon: "external",
        size: "sm",
        variant: "primary",
        busy: busy(s, "open-hermes", name),
        busyLabel: "Opening…",
        title: `Open ${b.page_url} in your browser`,
        attrs: { ...attrs, "aria-label": `${label}: ${name}, in your browser` },
      }),
    );
  } else if (b.kind === "serve" && b.url) {
    out.push(
      button("Copy connection details", {
        action: "copy-connection",
        icon: "copy",
        size: "sm",
        busy: busy(s, "copy", name),
        busyLabel: "Copying…",
        title: "Copy the URL and session token a Hermes client needs",
        attrs,
      }),
    );
  }
  if (external) {
    out.push(
      button("Check again", { action: "restart", icon: "restart", size: "sm", busy: busy(s, "restart", name), busyLabel: "Checking…", disabled: anyBusy, title: "Run the command again: it attaches to the Hermes already running, or starts this app's own", attrs }),
      button("Detach", { action: "stop", icon: "unlink", size: "sm", busy: busy(s, "stop", name), busyLabel: "Detaching…", disabled: anyBusy, title: "Stop using it; the Hermes already running keeps running", attrs }),
    );
  } else if (running) {
    out.push(
      button("Restart", { action: "restart", icon: "restart", size: "sm", busy: busy(s, "restart", name), busyLabel: "Restarting…", disabled: anyBusy, attrs }),
      button("Stop", { action: "stop", icon: "stop", size: "sm", busy: busy(s, "stop", name), busyLabel: "Stopping…", disabled: anyBusy, attrs }),
    );
  } else if (b.state === "stopped") {
    out.push(
      button("Start", { action: "start", icon: "play", size: "sm", variant: "primary", busy: busy(s, "start", name), busyLabel: "Starting…", disabled: anyBusy, attrs }),
    );
  }
  out.push(
    button("Remove", {
      action: "remove-ask",
      icon: "trash",
      size: "sm",
      variant: "ghost",
      disabled: anyBusy || s.removeConfirm === name,
      // No title: its tooltip stayed up over the question's Remove button,
      // which opens right under the pointer. The label says it all.
      attrs: { ...attrs, "aria-label": `Remove backend ${name}`, "aria-expanded": s.removeConfirm === name ? "true" : "false" },
    }),
  );
  return out;
}

/** The confirmation a Remove waits for. */
function removeConfirm(b: BackendStatus, s: AppState): HTMLElement | null {
  if (s.removeConfirm !== b.name) return null;
  // A question: say what Remove will do, not what is done.
  const consequence =
    b.state === "external"
      ? "This app will detach from it; the Hermes already running keeps running."
      : b.state === "stopped" || b.state === "failed"
        ? "It will be taken off the list."
        : "Its processes will be stopped and it will be taken off the list.";
  return h(
    "div.remove-confirm",
    { role: "group", "aria-label": `Confirm removing ${b.name}` },
    icon("warning", 16),
    h("p.remove-question", null, h("strong", null, `Remove backend ${b.name}?`), ` ${consequence}`),
    h(
      "div.remove-actions",
      null,
      button("Remove", { action: "remove-confirm", variant: "danger", size: "sm", busy: busy(s, "remove", b.name), busyLabel: "Removing…", attrs: { "data-name": b.name } }),
      button("Cancel", { action: "remove-cancel", variant: "ghost", size: "sm", disabled: busy(s, "remove", b.name), attrs: { "data-name": b.name } }),
    ),
  );
}

/**
 * Try again restarts a backend as its supervisor knows it (Go: the spec it
 * was started with), so a command or grace period saved since does not
 * apply: say so on a failed card, where a user who just fixed the command
 * in Settings tries again (issue 23). Known once Settings was loaded.
 */
function staleSettingsNote(s: AppState): HTMLElement | null {
  const v = s.settings.view;
  if (!v?.pending_restarts_backends) return null;
  return h(
    "p.restart-note.stale-settings",
    null,
    icon("info", 14),
    h("span", null, "Settings saved since Hermes Desktop started are not used by Try again. Restart Hermes Desktop to start this backend with them."),
  );
}

export function backendCard(b: BackendStatus, s: AppState, now: number): HTMLElement {
  const tone = stateTone(b.state);
  const pulsing = b.state === "starting" || b.state === "restarting";
  const running = b.state === "ready" || b.state === "starting" || b.state === "restarting";
  const anyBusy = LIFECYCLE.some((a) => busy(s, a, b.name));
  const uptime = uptimeOf(b);
  const note = s.notes.get(`backend:${b.name}`);

  let failure: HTMLElement | null = null;
  if (b.state === "failed") {
    const tail = (b.log_tail ?? []).slice(-12);
    failure = h(
      "div.failure",
      null,
      h("div.failure-head", null, icon("warning", 18), h("div", null, h("div.failure-title", null, "This backend stopped and could not recover"), h("p.failure-msg", null, b.last_error || "No error message was recorded."))),
      tail.length ? h("pre.log-tail", { "aria-label": "Last log lines" }, tail.join("\n")) : null,
      staleSettingsNote(s),
      h(
        "div.failure-actions",
        null,
        button("Try again", { action: "restart", icon: "restart", variant: "primary", busy: busy(s, "restart", b.name), busyLabel: "Starting…", disabled: anyBusy, attrs: { "data-name": b.name } }),
        s.settings.view?.pending_restarts_backends
          ? button("Restart Hermes Desktop", { action: "relaunch", icon: "restart", variant: "ghost", busy: s.busy.has("relaunch"), busyLabel: "Restarting…" })
          : null,
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
  // It sits in the Command block's label row, which is always there: a
  // line of its own pushed every button below it down as it appeared.
  const restartNote =
    (b.restarts ?? 0) > 0 && why && !(failure && why === (b.last_error ?? "").trim())
      ? h(
          "span.last-restart",
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
    `article.card.backend.state-${b.state}.kind-${b.kind}`,
    { "data-key": `backend:${b.name}`, "aria-label": `Backend ${b.name}` },
    h(
      "header.card-head",
      null,
      h(
        "div.card-title",
        null,
        h("h2", null, b.name),
        h("span.chip.kind-chip", { title: kindHelp(b.kind) || null }, kindLabel(b.kind)),
        b.host ? h("span.chip.host-chip.mono", { title: `Runs on ${b.host}, reached with your ssh` }, hostLabel(b.host)) : null,
        badge(tone, stateLabel(b.state), { pulse: pulsing }),
        uptime ? runningTime(b.state === "ready" ? "span.uptime" : "span.uptime.uptime-starting", uptime.prefix, uptime.since, now) : null,
        warnChip,
      ),
      h("div.card-actions", null, ...cardActions(b, s)),
    ),
    // Always present and a line tall, so a note or an error appearing does
    // not move the buttons below it (a screen reader hears it too).
    h(
      "div.card-note-slot",
      { role: "status" },
      inlineError(s.errors.get(`backend:${b.name}`)) ?? (note ? h("p.card-note", null, icon("check", 14), h("span", null, note)) : null),
    ),
    removeConfirm(b, s),
    b.state === "external"
      ? h("p.attached-note", null, icon("info", 14), h("span", null, "Hermes was already running; this app uses it and never stops it."))
      : null,
    failure,
    h(
      "dl.facts",
      null,
      addressFact(b),
      // A remote backend's PID is its host's: said so, never taken for one here.
      stat(b.host ? "Remote PID" : "PID", b.pid > 0 ? String(b.pid) : "—", b.pid > 0),
      // A remote backend's port here is the local end of its forward.
      stat(b.host ? "Local port" : "Port", b.port > 0 ? String(b.port) : "—", b.port > 0),
      stat("Restarts", String(b.restarts ?? 0)),
      stat("Processes", b.tree && running ? String(b.tree.count) : "—"),
      stat("Memory", b.tree && running ? formatBytes(b.tree.rss_bytes) : "—"),
      ...(b.host ? remoteFacts(b, now) : []),
    ),
    h("div.command", null, h("div.command-label", null, h("span", null, "Command"), restartNote), commandText(b)),
  );
}

/**
 * The command a card shows. The built-in backend's path (a hashed file in
 * the state dir) means nothing to a person: it is named instead, the real
 * command on hover. Any other command wraps between arguments, never
 * inside one ("--no-" on one line, "open" on the next).
 */
export function commandText(b: BackendStatus): HTMLElement {
  const argv = b.command ?? [];
  const line = shellJoin(argv);
  if (argv.length === 0) return h("code.command-text", null, "—");
  if (b.builtin) {
    return h("code.command-text.command-builtin", { title: line }, `Built-in backend (${b.kind})`);
  }
  const words: (HTMLElement | string)[] = [];
  argv.forEach((a, i) => {
    if (i > 0) words.push(" ");
    words.push(h("span.arg", null, shellQuote(a)));
  });
  return h("code.command-text", { title: line }, ...words);
}

/** Whether any backend has a page to open, so Open Hermes can work. */
export function hasPage(s: AppState): boolean {
  return (s.status?.backends ?? []).some((b) => !!b.page_url);
}

/** The Open Hermes button of the page header and the top bar. */
export function openHermesButton(s: AppState, errKey: string): HTMLElement {
  return button("Open Hermes", {
    action: "open-hermes",
    variant: "primary",
    icon: "external",
    busy: s.busy.has("open-hermes:"),
    busyLabel: "Opening…",
    title: "Open Hermes in your browser",
    attrs: { "data-name": "", "data-err-key": errKey, "aria-label": "Open Hermes in your browser" },
  });
}

/** The Add backend form when it is open: all that a keystroke in it can
 *  change, so the app re-renders it alone while the user types. */
export function addFormView(s: AppState): HTMLElement | null {
  return s.addForm.open ? addBackendForm(s.addForm) : null;
}

export function backendsView(s: AppState, now: number): HTMLElement {
  const bs = s.status?.backends ?? [];
  const multi = bs.length > 1;
  const form = s.addForm;
  const head = pageHeader(
    "Backends",
    bs.length ? `${plural(bs.length, "backend")} supervised by this app` : null,
    actionStatus(s.errors.get("backend:"), s.notes.get("backend:")),
    multi
      ? button("Restart all", { action: "restart-all", icon: "restart", busy: s.busy.has("restart:"), busyLabel: "Restarting…" })
      : null,
    button("Add backend", {
      action: "add-open",
      icon: "plus",
      attrs: { "aria-expanded": form.open ? "true" : "false", "aria-controls": form.open ? "add-backend" : null },
    }),
    hasPage(s) ? openHermesButton(s, "backend:") : null,
  );
  const adding = addFormView(s);
  if (bs.length === 0) {
    return h(
      "section.page",
      null,
      head,
      adding ??
        emptyState("backends", "No backend running", "Hermes Desktop has no backend configured. Add one with Add backend: a Dashboard gives you Hermes' web UI."),
    );
  }
  return h(
    "section.page",
    null,
    head,
    h("div.cards", null, adding, ...bs.map((b) => backendCard(b, s, now))),
  );
}
