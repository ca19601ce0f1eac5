// Types shared with the Go side. Field names are the JSON names the Go
// structs marshal to; keep them exactly in step with the bound methods.

export type InstanceMode = "gui" | "headless";

export interface InstanceInfo {
  pid: number;
  state_dir: string;
  nonce: string;
  mode: InstanceMode;
  version?: string;
  /** RFC3339 */
  started_at: string;
  /** Whether backends run under the watchdog shim (sent by newer Go builds). */
  shim?: boolean;
}

export type BackendState = "starting" | "ready" | "restarting" | "failed" | "stopped";

export interface TreeProcess {
  pid: number;
  ppid: number;
  argv: string[];
  rss_bytes: number;
  fds: number;
  /** RFC3339 */
  started: string;
}

export interface DuplicateGroup {
  argv: string[];
  count: number;
  pids: number[];
}

export type TreeWarningKind = "fd-pressure" | "duplicates" | "rss-growth";

export interface TreeWarning {
  kind: TreeWarningKind;
  message: string;
}

export interface TreeSample {
  sampled_at: string;
  count: number;
  rss_bytes: number;
  fds: number;
  nofile_soft: number;
  processes: TreeProcess[];
  duplicates: DuplicateGroup[];
  warnings: TreeWarning[];
}

export interface BackendStatus {
  name: string;
  state: BackendState;
  pid: number;
  shim_pid?: number;
  port: number;
  url?: string;
  restarts: number;
  command: string[];
  nonce?: string;
  started_at?: string;
  ready_at?: string;
  last_error?: string;
  /** Why the backend was last restarted: a crash, a leak-guard policy or
   *  "restarted on request". Unlike last_error it stays once ready again. */
  last_restart?: string;
  log_tail?: string[];
  tree?: TreeSample | null;
}

export interface Status {
  instance: InstanceInfo;
  backends: BackendStatus[];
  boot_reap?: ReapReport | null;
  notices?: string[];
}

export type LogStream = "stdout" | "stderr" | "launcher";

export interface LogLine {
  /** Increases by one per line of the same backend. */
  seq: number;
  time: string;
  backend: string;
  stream: LogStream;
  text: string;
}

export type ReapAction = "reaped" | "spared" | "would-reap" | "failed";

export interface ReapDecision {
  pid: number;
  action: ReapAction;
  reason: string;
  detail: string;
  cmdline: string[];
}

export interface ReapReport {
  started_at: string;
  dry_run: boolean;
  scanned: number;
  elapsed_ms: number;
  decisions: ReapDecision[];
}

export interface Settings {
  /** Shell-quoted command line; "" means the built-in default. */
  backend_command: string;
  ready_regex: string;
  health_path: string;
  /** Go duration, e.g. "5s". */
  grace: string;
  /** Go duration, e.g. "3m0s". */
  min_orphan_age: string;
  start_at_login: boolean;

  // Leak guard. Go omits these when zero, so a loaded object may lack them.
  /** Go duration, e.g. "5s"; "" or missing means the default (5s); 100ms..1h. */
  sample_interval?: string;
  /** 0..1000; 0 (or missing) is off. Keeps only the newest N descendants
   *  that share one command line and stops the older ones. */
  max_duplicate_children?: number;
  /** Restart a backend when a process of its tree passes 95% of its open-file limit. */
  restart_on_fd_pressure?: boolean;
  /** Soft open-file floor for backends: null/missing means the default
   *  (4096), 0 turns it off; 0..1048576. */
  nofile_soft_limit?: number | null;
}

export interface SettingsView {
  settings: Settings;
  defaults: Settings;
  path: string;
  notice?: string;
}

export type Unsubscribe = () => void;

/**
 * Everything the page can ask of the engine. src/api.ts implements it over
 * the Wails globals; src/mock.ts and the tests implement it in memory.
 */
export interface HermesAPI {
  Status(): Promise<Status>;
  Restart(name: string): Promise<void>;
  StartBackend(name: string): Promise<void>;
  StopBackend(name: string): Promise<void>;
  Logs(name: string, after: number, max: number): Promise<LogLine[]>;
  OpenURL(url: string): Promise<void>;
  OpenLogFolder(): Promise<void>;
  ScanOrphans(): Promise<ReapReport>;
  /** Reaps exactly these PIDs from a confirmed dry run, each only if it
   *  still qualifies when Go looks again. */
  ReapOrphans(pids: number[]): Promise<ReapReport>;
  GetSettings(): Promise<SettingsView>;
  SaveSettings(s: Settings): Promise<SettingsView>;
  Quit(): Promise<void>;

  onStatus(cb: (s: Status) => void): Unsubscribe;
  onLogs(cb: (lines: LogLine[]) => void): Unsubscribe;
  onReap(cb: (r: ReapReport) => void): Unsubscribe;
}
