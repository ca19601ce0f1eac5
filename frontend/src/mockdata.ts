// The browser preview's fixed data and the checks it makes like Go: what
// src/mock.ts plays with. Nothing here runs by itself.

import type { BackendKind, BackendSetting, BackendStatus, LogLine, ReapDecision, ReapReport, Settings, TreeProc, TreeSample } from "./types";
import { APPLIED_AT_ONCE, RESTARTS_BACKENDS, SETTINGS_KEYS } from "./generated/models";
import { captureGroups, parseGoDuration } from "./settings";

export const MB = 1024 * 1024;
export const HOME = "/home/ada";

export const DEFAULTS: Settings = {
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

export const CHATTER: [LogLine["stream"], string][] = [
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

export const iso = (t: number) => new Date(t).toISOString();
export const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
export const delay = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export interface MockBackend {
  status: BackendStatus;
  seq: number;
  tick: number;
  basePid: number;
}


// The command Go resolves for a kind (ResolveCommand), or a custom one.
export function commandOf(kind: BackendKind, args: string[], custom = ""): string[] {
  if (kind === "custom") return custom.split(/\s+/).filter((w) => w);
  const argv = ["hermes", kind];
  if (kind === "dashboard") argv.push("--no-open");
  return [...argv, "--host", "127.0.0.1", "--port", "0", ...args];
}

/** The report of the reap at the start, t0 the app's start. */
export function bootReapReport(t0: number): ReapReport {
  return {
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
    // The remote reap before a start on build-box: a session whose app died there.
    remote: [
      { host: "me@build-box", at: iso(t0 + 1_500), ownership_id: "3f0c9a2e7b1d4c5a8e6f0b2d4a6c8e0f", pid: 40711, action: "reaped", reason: "its watchdog (PID 40702) is gone and it is the backend our session file names (same start time)" },
    ],
  };
}

/** A sample of a backend's tree: a few MCP servers, three copies of one. */
export function sampleTree(b: MockBackend): TreeSample {
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
}

/** A scan (dry) or reap now; cleaned: a reap ran before, so a scan finds
 *  nothing more to reap. */
export function scanReport(dry: boolean, cleaned: boolean): ReapReport {
  const found: ReapDecision[] = [
    { pid: 52110, action: dry ? "would-reap" : "reaped", reason: "owner-dead", detail: "Its launcher (pid 51990) is gone and it still holds port 43790.", cmdline: ["hermes", "serve", "--host", "127.0.0.1", "--port", "0"] },
    { pid: 52131, action: dry ? "would-reap" : "reaped", reason: "orphan-no-record", detail: "Adopted by init, not in any record, and 11 minutes old.", cmdline: ["mimir", "--db", `${HOME}/.hermes/mimir.db`, "--watch"] },
  ];
  const spared: ReapDecision[] = [
    { pid: 1733, action: "spared", reason: "ssh-lock", detail: "Holds an SSH agent lock; stopping it could break a remote session.", cmdline: ["ssh", "-N", "-L", "8022:localhost:22", "build-box"] },
    { pid: 48230, action: "spared", reason: "owned", detail: "Belongs to this app's running backend “hermes”.", cmdline: ["hermes", "serve", "--host", "127.0.0.1"] },
  ];
  return {
    started_at: iso(Date.now()),
    dry_run: dry,
    scanned: 398 + Math.floor(Math.random() * 30),
    elapsed_ms: 14 + Math.floor(Math.random() * 12),
    decisions: dry && cleaned ? spared : [...found, ...spared],
  };
}

/** Refuses a backend as Go would (settings.Backend.Validate,
 *  Launcher.AddBackend); names are the running backends'. */
export function checkMockBackend(setting: BackendSetting, names: string[]): void {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(setting.name)) throw `backend "${setting.name}": a name is 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit`;
  if (names.some((n) => n.toLowerCase() === setting.name.toLowerCase())) throw `bad request: backend "${setting.name}": another backend has this name (names that differ only in upper and lower case count as the same)`;
  if (setting.kind === "custom" && !(setting.command ?? "").trim()) throw `backend ${setting.name}: a custom backend needs a command`;
  const re = setting.ready_regex ?? "";
  if (re !== "" && captureGroups(re) !== null && captureGroups(re)! < 1) throw `backend ${setting.name}: ready regex "${re}" needs one capture group for the port, like 'port (\\d+)'`;
  if (setting.health_path && !setting.health_path.startsWith("/")) throw `backend ${setting.name}: health path "${setting.health_path}" must start with /`;
  if (setting.grace && parseGoDuration(setting.grace) === null) throw `backend ${setting.name}: grace period: "${setting.grace}" is not a duration like 5s or 3m`;
  const host = setting.host ?? "";
  if (host.startsWith("-") || /[\u0000-\u0020\u007f]/.test(host)) throw `backend ${setting.name}: Host: "${host}" is not an ssh destination like user@example.com`;
}

/** Refuses settings as Go would, one error string for the first bad field
 *  (the update feed aside: mockFeedURLError). */
export function checkMockSettings(s: Settings): void {
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
}

/** A stopped backend of the preview, on port when it runs. */
export function mockBackend(port: number, name: string, kind: BackendKind, args: string[] = [], custom = ""): MockBackend {
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
}

/** The backends a scenario starts with (see src/mock.ts). */
export function scenarioBackends(scenario: string, t0: number, mk: (name: string, kind: BackendKind, args?: string[]) => MockBackend): MockBackend[] {
  const backends: MockBackend[] = [];
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
  return backends;
}

/** What the failed scenario's backend printed before it gave up. */
export const FAIL_TAIL = [
  "hermes 2.3.1 (profile research)",
  "loading tools: filesystem, fetch, memory, arxiv",
  "Traceback (most recent call last):",
  '  File "hermes/tools/arxiv.py", line 41, in load',
  "    import feedparser",
  "ModuleNotFoundError: No module named 'feedparser'",
];

/** The settings that apply only at a relaunch, like Go (settings.PendingRelaunch). */
const RESTART_KEYS = SETTINGS_KEYS.filter((k) => !APPLIED_AT_ONCE.includes(k));

/** What was saved since the app started and waits for a restart; some of
 *  it restarts the backends too. */
export function pendingRelaunch(started: Settings, s: Settings): { pending: string[]; pending_restarts_backends: boolean } {
  const pending: string[] = RESTART_KEYS.filter((k) => (k !== "backend_command" || !s.backends?.length) && JSON.stringify(started[k] ?? null) !== JSON.stringify(s[k] ?? null));
  return { pending, pending_restarts_backends: pending.some((k) => (RESTARTS_BACKENDS as readonly string[]).includes(k)) };
}
