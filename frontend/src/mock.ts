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
import { applyEdit, captureGroups, parseGoDuration } from "./settings";
import type {
  BackendKind,
  BackendSetting,
  BackendStatus,
  HermesAPI,
  InstanceInfo,
  LogLine,
  ReapDecision,
  ReapReport,
  Settings,
  SettingsView,
  Status,
  TreeProc,
  TreeSample,
} from "./types";

export type Scenario = "default" | "failed" | "attached" | "error" | "slow" | "empty" | "update" | "remote";

type Listener<T> = (v: T) => void;

const MB = 1024 * 1024;
const HOME = "/home/ada";

const DEFAULTS: Settings = {
  backend_command: "hermes serve",
  ready_regex: "HERMES_(?:BACKEND|DASHBOARD)_READY port=(\\d+)",
  health_path: "/api/health",
  grace: "5s",
  min_orphan_age: "3m0s",
  start_at_login: false,
  // Go omits max_duplicate_children and restart_on_fd_pressure when 0/false.
  sample_interval: "5s",
  nofile_soft_limit: 4096,
  // Go omits ssh_config when empty (ssh's own file).
  disconnect_grace: "30s",
};

const CHATTER: [LogLine["stream"], string][] = [
  ["stdout", "GET /api/health 200 0.8ms"],
  ["stdout", "session 7f3a: loaded 14 tools from 3 MCP servers"],
  ["stdout", "POST /api/chat 200 1.42s (model=local, tokens=812)"],
  ["stderr", "warning: mimir index is 3 days old; run `mimir reindex` to refresh"],
  ["stdout", "GET /api/sessions 200 3.1ms"],
  ["stdout", "memory: 1,204 notes indexed, 38 embeddings cached"],
  ["stdout", "POST /api/tools/run web.fetch 200 640ms"],
  ["stderr", "DeprecationWarning: the 'profile' query parameter is deprecated"],
  ["stdout", "GET /api/status 200 1.1ms"],
];

const iso = (t: number) => new Date(t).toISOString();
const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
const delay = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

interface MockBackend {
  status: BackendStatus;
  seq: number;
  tick: number;
  basePid: number;
}

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
  // Like Go (settings.PendingRestart): what was saved since the app started
  // and waits for a restart; some of it restarts the backends too.
  let started: Settings = { ...settings };
  const RESTART_KEYS = ["backend_command", "ready_regex", "health_path", "grace", "min_orphan_age", "sample_interval", "max_duplicate_children", "restart_on_fd_pressure", "nofile_soft_limit", "disconnect_grace"] as const;
  const pendingOf = (s: Settings) => {
    const pending: string[] = RESTART_KEYS.filter((k) => (k !== "backend_command" || !s.backends?.length) && JSON.stringify(started[k] ?? null) !== JSON.stringify(s[k] ?? null));
    return { pending, pending_restarts_backends: pending.some((k) => k === "backend_command" || k === "grace" || k === "nofile_soft_limit" || k === "disconnect_grace") };
  };
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

  const backends: MockBackend[] = [];
  // The command Go resolves for a kind (ResolveCommand), or a custom one.
  const commandOf = (kind: BackendKind, args: string[], custom = ""): string[] => {
    if (kind === "custom") return custom.split(/\s+/).filter((w) => w);
    const argv = ["hermes", kind];
    if (kind === "dashboard") argv.push("--no-open");
    return [...argv, "--host", "127.0.0.1", "--port", "0", ...args];
  };
  let nextPort = 43817;
  const mk = (name: string, kind: BackendKind, args: string[] = [], custom = ""): MockBackend => {
    const port = nextPort;
    nextPort += 84;
    return {
      status: {
        name,
        kind,
        state: "stopped",
        pid: 0,
        port: 0,
        restarts: 0,
        command: commandOf(kind, args, custom),
        tree: undefined,
      },
      seq: 0,
      tick: 0,
      basePid: port,
    };
  };

  const bootReap: ReapReport = {
    started_at: iso(t0 - 2 * 3_600_000 - 14 * 60_000 + 150),
    dry_run: false,
    scanned: 412,
    elapsed_ms: 21,
    decisions: [
      { pid: 31877, action: "reaped", reason: "owner-dead", detail: "Its launcher (pid 30112) exited yesterday at 18:02 without stopping it.", cmdline: ["hermes", "serve", "--host", "127.0.0.1", "--port", "0", "--profile", "default"] },
      { pid: 31902, action: "reaped", reason: "orphan-no-record", detail: "Adopted by init, not in any record, and 2 hours old.", cmdline: ["node", `${HOME}/.hermes/mcp/filesystem/index.js`, "--root", `${HOME}/Documents`] },
      { pid: 29011, action: "spared", reason: "too-young", detail: "Started 40 seconds ago; orphans must be at least 3 minutes old.", cmdline: ["mimir", "--db", `${HOME}/.hermes/mimir.db`] },
      { pid: 1733, action: "spared", reason: "ssh-lock", detail: "Holds an SSH agent lock; stopping it could break a remote session.", cmdline: ["ssh", "-N", "-L", "8022:localhost:22", "build-box"] },
      { pid: 988, action: "spared", reason: "service-managed", detail: "Run by systemd (hermes-gateway.service), which restarts it on its own.", cmdline: ["hermes", "gateway", "--config", "/etc/hermes/gateway.toml"] },
    ],
  };

  if (scenario !== "empty") {
    const main = mk("hermes", "dashboard");
    // An earlier leak-guard restart, so the card shows why.
    main.status.restarts = 1;
    main.status.last_restart =
      "restarted before it ran out of file descriptors: pid 43824 (node /home/ada/.hermes/mcp/filesystem/watcher.js) has 3901 of 4096 files open (95%): it will fail with EMFILE soon";
    backends.push(main, mk("api", "serve"));
  }
  if (scenario === "failed") backends.push(mk("research", "dashboard", ["--profile", "research"]));
  if (scenario === "remote") {
    const far = mk("build-box", "serve");
    far.status.host = "ada@build-box";
    far.status.remote = { connection: "reconnecting", attempt: 3, next_attempt: iso(t0 + 8_000), platform: "linux/arm64", port: 8642, error: "Connection reset by peer" };
    backends.push(far);
  }

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

  const sampleTree = (b: MockBackend): TreeSample => {
    const now = Date.now();
    const root = b.status.pid;
    const wobble = (n: number) => Math.round(n * (1 + 0.03 * Math.sin(b.tick / 2 + n)));
    const started = b.status.started_at ?? iso(now);
    const p = (pid: number, ppid: number, argv: string[], rss: number, fds: number, ageMs?: number): TreeProc => ({
      pid,
      ppid,
      argv,
      rss_bytes: wobble(rss),
      fds,
      started: ageMs === undefined ? started : iso(now - ageMs),
    });
    const mimir = ["mimir", "--db", `${HOME}/.hermes/mimir.db`];
    const processes: TreeProc[] = [
      p(root, b.status.shim_pid ?? 1, b.status.command, 182.4 * MB, 64),
      p(root + 1, root, ["node", `${HOME}/.hermes/mcp/filesystem/index.js`, "--root", `${HOME}/Documents`], 38.2 * MB, 23),
      p(root + 2, root, ["uvx", "mcp-server-fetch"], 12.1 * MB, 9),
      p(root + 3, root + 2, ["python3", "-m", "mcp_server_fetch"], 46.8 * MB, 14),
      p(root + 4, root, mimir, 21.5 * MB, 31),
      p(root + 5, root, mimir, 21.3 * MB, 31),
      p(root + 6, root, mimir, 20.9 * MB, 29),
      p(root + 7, root + 1, ["node", `${HOME}/.hermes/mcp/filesystem/watcher.js`], 18.4 * MB, 41),
      // A helper whose parent exited: the sampler still counts it.
      p(root + 9, root + 8, ["git", "fsmonitor--daemon", "run", "--detach"], 6.2 * MB, 8, 95_000),
    ];
    const rss = processes.reduce((n, x) => n + x.rss_bytes, 0);
    const fds = processes.reduce((n, x) => n + x.fds, 0);
    return {
      sampled_at: iso(now),
      changed_at: iso(now - 40_000),
      count: processes.length,
      rss_bytes: rss,
      fds,
      nofile_soft: 4096,
      processes,
      duplicates: [{ argv: mimir, count: 3, pids: [root + 4, root + 5, root + 6] }],
      // One card with a warning is enough to show what it looks like.
      warnings:
        b.status.name === "hermes"
          ? [{ kind: "duplicates", message: "3 copies of “mimir --db …/mimir.db” are running; usually there is one per backend." }]
          : [],
    };
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
    const tail = [
      "hermes 2.3.1 (profile research)",
      "loading tools: filesystem, fetch, memory, arxiv",
      "Traceback (most recent call last):",
      '  File "hermes/tools/arxiv.py", line 41, in load',
      "    import feedparser",
      "ModuleNotFoundError: No module named 'feedparser'",
    ];
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
      log_tail: tail,
      started_at: iso(Date.now() - 95_000),
      tree: undefined,
    };
    for (const l of tail) log(b, l.startsWith("hermes") || l.startsWith("loading") ? "stdout" : "stderr", l);
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

  const scanReport = (dry: boolean): ReapReport => {
    const found: ReapDecision[] = [
      { pid: 52110, action: dry ? "would-reap" : "reaped", reason: "owner-dead", detail: "Its launcher (pid 51990) is gone and it still holds port 43790.", cmdline: ["hermes", "serve", "--host", "127.0.0.1", "--port", "0"] },
      { pid: 52131, action: dry ? "would-reap" : "reaped", reason: "orphan-no-record", detail: "Adopted by init, not in any record, and 11 minutes old.", cmdline: ["mimir", "--db", `${HOME}/.hermes/mimir.db`, "--watch"] },
    ];
    const spared: ReapDecision[] = [
      { pid: 1733, action: "spared", reason: "ssh-lock", detail: "Holds an SSH agent lock; stopping it could break a remote session.", cmdline: ["ssh", "-N", "-L", "8022:localhost:22", "build-box"] },
      { pid: 48230, action: "spared", reason: "owned", detail: "Belongs to this app's running backend “hermes”.", cmdline: ["hermes", "serve", "--host", "127.0.0.1"] },
    ];
    const cleaned = lastReap !== null && !lastReap.dry_run;
    return {
      started_at: iso(Date.now()),
      dry_run: dry,
      scanned: 398 + Math.floor(Math.random() * 30),
      elapsed_ms: 14 + Math.floor(Math.random() * 12),
      decisions: dry && cleaned ? spared : [...found, ...spared],
    };
  };

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
      // Like Go (settings.Backend.Validate, Launcher.AddBackend).
      if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(setting.name)) throw `backend "${setting.name}": a name is 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit`;
      if (backends.some((x) => x.status.name.toLowerCase() === setting.name.toLowerCase())) throw `bad request: backend "${setting.name}": another backend has this name (names that differ only in upper and lower case count as the same)`;
      if (setting.kind === "custom" && !(setting.command ?? "").trim()) throw `backend ${setting.name}: a custom backend needs a command`;
      const re = setting.ready_regex ?? "";
      if (re !== "" && captureGroups(re) !== null && captureGroups(re)! < 1) throw `backend ${setting.name}: ready regex "${re}" needs one capture group for the port, like 'port (\\d+)'`;
      if (setting.health_path && !setting.health_path.startsWith("/")) throw `backend ${setting.name}: health path "${setting.health_path}" must start with /`;
      if (setting.grace && parseGoDuration(setting.grace) === null) throw `backend ${setting.name}: grace period: "${setting.grace}" is not a duration like 5s or 3m`;
      const host = setting.host ?? "";
      if (host.startsWith("-") || /[\u0000-\u0020\u007f]/.test(host)) throw `backend ${setting.name}: Host: "${host}" is not an ssh destination like user@example.com`;
      added.set(setting.name, setting);
      const b = mk(setting.name, setting.kind, setting.args ?? [], setting.command ?? "");
      // The preview has no ssh: a remote backend is simply connected.
      if (host) Object.assign(b.status, { host, remote: { connection: "connected", platform: "linux/amd64", port: 8642, latency_ms: 14.2 } });
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
      return scanReport(true);
    },
    async ReapOrphans(_pids: number[]) {
      await delay(900);
      const r = scanReport(false);
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
      // Like Go, one error string for the first bad field.
      if (s.grace !== "" && parseGoDuration(s.grace) === null) throw `grace period: "${s.grace}" is not a duration like 5s or 3m`;
      const si = s.sample_interval ?? "";
      const sims = parseGoDuration(si);
      if (si !== "" && (sims === null || sims < 100 || sims > 3_600_000)) throw `sample interval: "${si}" is outside 100ms..1h0m0s`;
      const dg = s.disconnect_grace ?? "";
      const dgms = parseGoDuration(dg);
      if (dg !== "" && (dgms === null || dgms < 3000 || dgms > 3_600_000)) throw `Disconnect grace: "${dg}" is outside 3s..1h0m0s`;
      const ssh = s.ssh_config ?? "";
      if (ssh !== "" && !ssh.startsWith("/")) throw `SSH config file: "${ssh}" is not an absolute path like /home/you/.ssh/config`;
      const dup = s.max_duplicate_children ?? 0;
      if (!Number.isInteger(dup) || dup < 0 || dup > 1000) throw `max duplicate children: ${dup} is outside 0..1000`;
      const nf = s.nofile_soft_limit;
      if (nf !== null && nf !== undefined && (!Number.isInteger(nf) || nf < 0 || nf > 1 << 20)) throw `open-file floor: ${nf} is outside 0..1048576`;
      if (s.backend_command.includes("rm -rf")) throw "backend_command: refusing a command that deletes files";
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
    async RestartApp() {
      await delay(900);
      // In Wails this window closes and the new instance opens its own; here
      // the new instance simply takes over the status.
      started = { ...settings };
      instance = { ...instance, pid: instance.pid + 17, started_at: iso(Date.now()) };
      emitStatus();
    },
    async RestartToApply() {
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
