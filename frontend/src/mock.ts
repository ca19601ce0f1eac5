// An in-memory engine for `npm run dev` in a plain browser (no window.go).
// It plays a dashboard and an API server (`hermes serve`) going starting ->
// ready, writes log lines, samples a process tree with duplicate children
// and carries a boot reap report. Backends can be added and removed.
//
// Add ?scenario=NAME to the page URL for other situations:
//   failed   - a third backend that failed, plus a config notice
//   attached - the dashboard attached to a Hermes someone else runs
//   error    - Status() rejects (the error screen)
//   slow     - Status() never answers (the loading screen)
//   empty    - no backends and no reap report
//   update   - a package upgrade replaced the app: "Restart to apply"
//   remote   - a third backend on another host, reconnecting

import { createMockUpdates, mockFeedURLError } from "./mockupdate";
import { bootReapReport, CHATTER, checkMockBackend, checkMockSettings, clone, DEFAULTS, delay, FAIL_TAIL, HOME, iso } from "./mockdata";
import { mockBackend, pendingRelaunch, sampleTree, scanReport, scenarioBackends, type MockBackend } from "./mockdata";
import { applyEdit } from "./settings";
import type { BackendKind, BackendSetting, HermesAPI, InstanceInfo, LogLine, ReapReport, Settings, SettingsView, Status } from "./types";

export type Scenario = "default" | "failed" | "attached" | "error" | "slow" | "empty" | "update" | "remote";

type Listener<T> = (v: T) => void;

export function scenarioFromLocation(search: string): Scenario {
  const v = new URLSearchParams(search).get("scenario");
  return v === "failed" || v === "attached" || v === "error" || v === "slow" || v === "empty" || v === "update" || v === "remote" ? v : "default";
}

export function createMockApi(scenario: Scenario = "default", t0 = Date.now()): HermesAPI {
  const statusL = new Set<Listener<Status>>();
  const logsL = new Set<Listener<LogLine[]>>();
  const reapL = new Set<Listener<ReapReport>>();
  let pendingLogs: LogLine[] = [];
  const history: LogLine[] = [];
  // The preview's updates come from a feed, as a real app's would.
  let settings: Settings = { ...DEFAULTS, restart_on_fd_pressure: true, update_feed: "https://updates.example.com/hermes-desktop/stable.json" };
  // Like Go (settings.PendingRelaunch): what was saved since the app started
  // and waits for a restart; some of it restarts the backends too.
  let started: Settings = { ...settings };
  const pendingOf = (s: Settings) => pendingRelaunch(started, s);
  let lastReap: ReapReport | null = null;
  /** The running list as settings, as Go's Launcher.BackendSettings says it. */
  // Like Go (runspec.Spec.Setting): each added backend is saved as it was configured.
  const added = new Map<string, BackendSetting>();
  const saveableList = (): BackendSetting[] =>
    backends.map(
      (x) => added.get(x.status.name) ?? { name: x.status.name, kind: x.status.kind, ...(x.status.kind === "custom" ? { command: x.status.command.join(" ") } : {}) },
    );
  let nextPid = 48230;
  // Like Go: while the window is hidden it is sent no events.
  let visible = true;

  let instance: InstanceInfo = {
    pid: 48213,
    state_dir: `${HOME}/.local/state/hermes-desktop`,
    nonce: "c0ffee42",
    mode: "gui",
    version: "0.4.0-dev",
    started_at: iso(t0 - 2 * 3_600_000 - 14 * 60_000),
    shim: true,
    restart_to_apply: scenario === "update" ? true : undefined,
  };

  const bootReap = bootReapReport(t0);

  let nextPort = 43817;
  const mk = (name: string, kind: BackendKind, args: string[] = [], custom = ""): MockBackend => {
    nextPort += 84;
    return mockBackend(nextPort - 84, name, kind, args, custom);
  };
  const backends: MockBackend[] = scenarioBackends(scenario, t0, mk);

  const snapshot = (): Status => ({
    instance,
    backends: backends.map((b) => b.status),
    boot_reap: scenario === "empty" ? undefined : bootReap,
    notices:
      scenario === "failed"
        ? ["config.json was invalid and was set aside as config.json.corrupt; defaults are in use"]
        : [],
  });
  const emitStatus = () => {
    if (!visible) return;
    const s = clone(snapshot());
    statusL.forEach((l) => l(s));
  };
  const updates = createMockUpdates(instance, emitStatus);
  instance.update!.feed = settings.update_feed;
  const log = (b: MockBackend, stream: LogLine["stream"], text: string) => {
    b.seq++;
    const line: LogLine = { seq: b.seq, time: new Date().toISOString(), backend: b.status.name, stream, text };
    pendingLogs.push(line);
    history.push(line);
    if (history.length > 4000) history.splice(0, history.length - 4000);
  };

  const boot = (b: MockBackend, readyAfter = 1600) => {
    const now = Date.now();
    b.status = {
      ...b.status,
      state: "starting",
      pid: nextPid,
      shim_pid: nextPid - 1,
      port: 0,
      url: undefined,
      page_url: undefined,
      started_at: iso(now),
      ready_at: undefined,
      last_error: undefined,
      log_tail: undefined,
      nonce: Math.random().toString(16).slice(2, 10),
      tree: undefined,
    };
    nextPid += 20;
    log(b, "launcher", `starting: ${b.status.command.join(" ")}`);
    const profile = b.status.command.indexOf("--profile");
    log(b, "stdout", "hermes 2.3.1 (profile " + (profile >= 0 ? b.status.command[profile + 1] : "default") + ")");
    log(b, "stdout", "loading tools: filesystem, fetch, memory");
    emitStatus();
    setTimeout(() => {
      if (b.status.state !== "starting") return;
      log(b, "stdout", `HERMES_BACKEND_READY port=${b.basePid}`);
      log(b, "launcher", `ready: health check ${DEFAULTS.health_path} answered 200 after ${(readyAfter / 1000).toFixed(1)}s`);
      const url = `http://127.0.0.1:${b.basePid}/`;
      // Like Go: a serve backend is API only, the rest have a page.
      const page_url = b.status.kind === "serve" ? undefined : url;
      b.status = { ...b.status, state: "ready", port: b.basePid, url, page_url, ready_at: iso(Date.now()) };
      b.status.tree = sampleTree(b);
      emitStatus();
    }, readyAfter);
  };

  const fail = (b: MockBackend) => {
    b.status = {
      ...b.status,
      state: "failed",
      pid: 0,
      port: 0,
      restarts: 5,
      last_restart: "exited with status 1",
      url: undefined,
      page_url: undefined,
      last_error: "Exited with status 1 five times in 2 minutes; gave up restarting it.",
      log_tail: FAIL_TAIL,
      started_at: iso(Date.now() - 95_000),
      tree: undefined,
    };
    for (const l of FAIL_TAIL) log(b, l.startsWith("hermes") || l.startsWith("loading") ? "stdout" : "stderr", l);
    log(b, "launcher", "giving up after 5 crashes in 2m0s");
  };

  // Someone else's Hermes: our command found it and attached.
  const attach = (b: MockBackend) => {
    const url = "http://127.0.0.1:9119/";
    log(b, "launcher", `starting: ${b.status.command.join(" ")}`);
    log(b, "stdout", `Hermes is already running at ${url}`);
    log(b, "launcher", `Hermes is already running at ${url}: attached to it (it is not ours: never stopped or restarted by us)`);
    b.status = { ...b.status, state: "external", pid: 0, shim_pid: undefined, port: 9119, url, page_url: url, started_at: iso(Date.now()), tree: undefined };
  };

  // Start-up.
  for (const b of backends) {
    if (b.status.name === "research") fail(b);
    else if (scenario === "attached" && b.status.name === "hermes") attach(b);
    else boot(b);
  }

  // Periodic work: log chatter, tree samples, batched log events.
  let chat = 0;
  setInterval(() => {
    const live = backends.filter((b) => b.status.state === "ready");
    for (const b of live) {
      b.tick++;
      if (b.tick % 3 === 0) {
        const [stream, text] = CHATTER[chat++ % CHATTER.length];
        log(b, stream, text);
      }
      if (b.tick % 12 === 0) {
        b.status.tree = sampleTree(b);
        emitStatus();
      }
    }
  }, 250);
  setInterval(() => {
    if (pendingLogs.length === 0) return;
    const batch = pendingLogs;
    pendingLogs = [];
    if (!visible) return; // Go drops them too: the page asks Logs() on show
    logsL.forEach((l) => l(clone(batch)));
  }, 250);

  const find = (name: string) => {
    const b = backends.find((x) => x.status.name === name);
    if (!b) throw `no backend named "${name}"`;
    return b;
  };
  const targets = (name: string) => (name === "" ? backends : [find(name)]);

  return {
    async Status() {
      if (scenario === "error") {
        await delay(300);
        throw "cannot reach the launcher: control socket /run/user/1000/hermes-desktop/control.sock refused the connection";
      }
      if (scenario === "slow") return new Promise<Status>(() => {});
      await delay(120);
      return clone(snapshot());
    },
    async Restart(name) {
      await delay(300);
      // Go: Launcher.Restart leaves a stopped backend stopped.
      if (name && targets(name).some((b) => b.status.state === "stopped")) throw `refused: backend ${name} is stopped; Start starts it`;
      for (const b of targets(name)) {
        if (b.status.state === "stopped") continue;
        if (b.status.state === "external") {
          attach(b); // the command runs again and finds the same Hermes
          emitStatus();
          continue;
        }
        log(b, "launcher", "restart requested");
        b.status.restarts++;
        b.status.last_restart = "restarted on request";
        boot(b, 1400);
      }
    },
    async StartBackend(name) {
      await delay(250);
      const b = find(name);
      if (b.status.state !== "stopped" && b.status.state !== "failed") throw `${name} is already ${b.status.state}`;
      boot(b);
    },
    async StopBackend(name) {
      await delay(500);
      const b = find(name);
      log(b, "launcher", `stopping: SIGTERM to ${b.status.pid}, grace ${settings.grace}`);
      log(b, "launcher", "stopped: exited with status 0");
      b.status = { ...b.status, state: "stopped", pid: 0, shim_pid: undefined, port: 0, url: undefined, page_url: undefined, ready_at: undefined, tree: undefined };
      emitStatus();
    },
    async Logs(name, after, max) {
      await delay(60);
      const all = history.filter((l) => l.backend === name && l.seq > after);
      return clone(max > 0 ? all.slice(-max) : all);
    },
    async OpenURL(url) {
      window.open(url, "_blank", "noopener");
    },
    async OpenHermes(name) {
      await delay(80);
      const b = name === "" ? backends.find((x) => x.status.page_url) : find(name);
      const url = b?.status.page_url;
      if (!url) throw name === "" || b?.status.kind !== "serve" ? "no backend with a page is ready" : `backend ${name} is API only (a serve backend); use its connection details`;
      window.open(url, "_blank", "noopener");
      return url;
    },
    async ConnectionDetails(name) {
      await delay(80);
      const b = find(name);
      if (!b.status.url) throw `backend ${name} is ${b.status.state}`;
      const token = "preview-token-not-real";
      const ws = b.status.url.replace(/^http/, "ws").replace(/\/$/, "");
      return `URL: ${b.status.url}\nToken: ${token}\nREST header: X-Hermes-Session-Token: ${token}\nWebSocket: ${ws}/api/ws?token=${token}\n`;
    },
    async AddBackend(setting: BackendSetting) {
      await delay(300);
      checkMockBackend(setting, backends.map((x) => x.status.name));
      const host = setting.host ?? "";
      added.set(setting.name, setting);
      const b = mk(setting.name, setting.kind, setting.args ?? [], setting.command ?? "");
      // The preview has no ssh: a remote backend is simply connected.
      if (host) Object.assign(b.status, { host, remote: { connection: "connected", platform: "linux/amd64", port: 8642, latency_ms: 14.2, isolation: "netns" } });
      backends.push(b);
      boot(b);
      // Like Go (App.saveBackends): the running list is saved.
      settings = { ...settings, backends: saveableList(), backend_command: "" };
    },
    async RemoveBackend(name) {
      await delay(500);
      const b = find(name);
      if (b.status.state !== "external" && b.status.pid > 0) log(b, "launcher", `stopping: SIGTERM to ${b.status.pid}, grace ${settings.grace}`);
      backends.splice(backends.indexOf(b), 1);
      added.delete(name);
      settings = { ...settings, backends: saveableList(), backend_command: "" };
      emitStatus();
    },
    async ClipboardSetText(text) {
      try {
        await navigator.clipboard.writeText(text);
        return true;
      } catch {
        return false;
      }
    },
    async SaveDiagnosticReport() {
      await delay(300);
      return `/home/you/Downloads/hermes-desktop-report-${new Date().toISOString().replace(/[-:]/g, "").slice(0, 15)}.zip`;
    },
    async OpenReportFolder() {
      await delay(150);
      throw "no file manager in the browser preview";
    },
    async OpenLogFolder() {
      await delay(150);
      throw `no file manager in the browser preview; logs are in ${instance.state_dir}/logs`;
    },
    async ScanOrphans() {
      await delay(700);
      return scanReport(true, lastReap !== null && !lastReap.dry_run);
    },
    async ReapOrphans(_pids: number[]) {
      await delay(900);
      const r = scanReport(false, lastReap !== null && !lastReap.dry_run);
      lastReap = r;
      setTimeout(() => visible && reapL.forEach((l) => l(clone(r))), 0);
      return clone(r);
    },
    async GetSettings(): Promise<SettingsView> {
      await delay(100);
      return clone({
        settings,
        defaults: DEFAULTS,
        path: `${HOME}/.config/hermes-desktop/config.json`,
        notice: scenario === "failed" ? "config.json was invalid and was set aside as config.json.corrupt; defaults are in use" : undefined,
        ...pendingOf(settings),
      });
    },
    async SaveSettings(edit) {
      await delay(400);
      // Like Go (settings.Store.Edit): the named fields over what is saved now.
      const s = applyEdit(settings, edit);
      checkMockSettings(s);
      const feed = s.update_feed ?? "";
      const feedError = await mockFeedURLError(feed);
      if (feedError) throw feedError;
      settings = { ...s };
      // Like Go, the update settings apply at once (the preview's feed stays simulated).
      Object.assign(instance.update!, { feed: feed || undefined, automatic: !!s.update_automatically });
      emitStatus();
      return clone({ settings, defaults: DEFAULTS, path: `${HOME}/.config/hermes-desktop/config.json`, ...pendingOf(settings) });
    },
    async Quit() {
      await delay(400);
      throw "Quit is not available in the browser preview";
    },
    async Relaunch() {
      await delay(900);
      // In Wails this window closes and the new instance opens its own; here
      // the new instance simply takes over the status.
      started = { ...settings };
      instance = { ...instance, pid: instance.pid + 17, started_at: iso(Date.now()) };
      emitStatus();
    },
    async ApplyInstalledUpdate() {
      await delay(900);
      if (!instance.restart_to_apply) throw "nothing to apply: the executable on disk is the one running";
      // In Wails this window closes and the new version opens its own; here
      // the new version simply takes over the status.
      instance = { ...instance, pid: instance.pid + 61, version: "0.4.1-dev", started_at: iso(Date.now()), restart_to_apply: undefined };
      emitStatus();
    },
    async SetWindowVisible(v) {
      const shown = v && !visible;
      visible = v;
      // Like Go's pump: one fresh status, at its next batch.
      if (shown) setTimeout(emitStatus, 250);
    },
    ...updates,
    FeedURLError: mockFeedURLError,
    onStatus(cb) {
      statusL.add(cb);
      return () => statusL.delete(cb);
    },
    onLogs(cb) {
      logsL.add(cb);
      return () => logsL.delete(cb);
    },
    onReap(cb) {
      reapL.add(cb);
      return () => reapL.delete(cb);
    },
  };
}
