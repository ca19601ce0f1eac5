import { describe, expect, it, vi } from "vitest";
import { createWailsApi, hasWails, normalizeStatus, platformQuoting } from "../src/api";
import { status } from "./fixtures";

function fakeWindow() {
  const handlers = new Map<string, (...d: unknown[]) => void>();
  const App = {
    Status: vi.fn(async () => ({ ...status([]), backends: null, notices: null })),
    Restart: vi.fn(async () => {}),
    StartBackend: vi.fn(async () => {}),
    StopBackend: vi.fn(async () => {}),
    Logs: vi.fn(async () => null),
    OpenURL: vi.fn(async () => {}),
    OpenHermes: vi.fn(async () => "http://127.0.0.1:9/"),
    ConnectionDetails: vi.fn(async () => "URL: http://127.0.0.1:9/\n"),
    AddBackend: vi.fn(async () => {}),
    RemoveBackend: vi.fn(async () => Promise.reject("not found")),
    OpenLogFolder: vi.fn(async () => {}),
    SaveDiagnosticReport: vi.fn(async () => "/r.zip"),
    OpenReportFolder: vi.fn(async () => {}),
    ScanOrphans: vi.fn(async () => ({ started_at: "", dry_run: true, scanned: 3, elapsed_ms: 1, decisions: null })),
    ReapOrphans: vi.fn(async () => Promise.reject("permission denied")),
    GetSettings: vi.fn(async () => ({})),
    SaveSettings: vi.fn(async () => ({})),
    Quit: vi.fn(async () => {}),
    SetWindowVisible: vi.fn(async () => {}),
    ApplyInstalledUpdate: vi.fn(async () => Promise.reject("the new executable did not start")),
    Relaunch: vi.fn(async () => {}),
    CheckForUpdate: vi.fn(async () => ({ current: "1.0.0", latest: "1.1.0", available: true, notes: "", reason: "" })),
    ApplyUpdate: vi.fn(async () => {}),
    SkipVersion: vi.fn(async () => {}),
  };
  const unsub = vi.fn();
  const runtime = {
    EventsOn: vi.fn((name: string, cb: (...d: unknown[]) => void) => {
      handlers.set(name, cb);
      return unsub;
    }),
    BrowserOpenURL: vi.fn(),
    ClipboardSetText: vi.fn(async () => true),
  };
  const w = { go: { main: { App } }, runtime } as unknown as Window;
  return { w, App, runtime, handlers, unsub };
}

describe("createWailsApi", () => {
  it("calls the bound Go methods with their arguments", async () => {
    const { w, App } = fakeWindow();
    const api = createWailsApi(w);
    await api.Restart("hermes");
    await api.StopBackend("b");
    await api.StartBackend("c");
    await api.OpenURL("http://127.0.0.1:1/");
    expect(App.Restart).toHaveBeenCalledWith("hermes");
    expect(App.StopBackend).toHaveBeenCalledWith("b");
    expect(App.StartBackend).toHaveBeenCalledWith("c");
    expect(App.OpenURL).toHaveBeenCalledWith("http://127.0.0.1:1/");
    expect(await api.Logs("hermes", 0, 500)).toEqual([]);
    expect(App.Logs).toHaveBeenCalledWith("hermes", 0, 500);
  });

  it("calls the backend methods and the runtime's clipboard", async () => {
    const { w, App, runtime } = fakeWindow();
    const api = createWailsApi(w);
    expect(await api.OpenHermes("")).toBe("http://127.0.0.1:9/");
    expect(App.OpenHermes).toHaveBeenCalledWith("");
    expect(await api.ConnectionDetails("api")).toBe("URL: http://127.0.0.1:9/\n");
    expect(App.ConnectionDetails).toHaveBeenCalledWith("api");
    await api.AddBackend({ name: "x", kind: "serve", args: ["--profile", "p"] });
    expect(App.AddBackend).toHaveBeenCalledWith({ name: "x", kind: "serve", args: ["--profile", "p"] });
    await expect(api.RemoveBackend("x")).rejects.toBe("not found");
    expect(App.RemoveBackend).toHaveBeenCalledWith("x");
    expect(await api.ClipboardSetText("text")).toBe(true);
    expect(runtime.ClipboardSetText).toHaveBeenCalledWith("text");
  });

  it("tells Go whether the window can be seen", async () => {
    const { w, App } = fakeWindow();
    const api = createWailsApi(w);
    await api.SetWindowVisible(false);
    await api.SetWindowVisible(true);
    expect(App.SetWindowVisible.mock.calls).toEqual([[false], [true]]);
  });

  it("calls ApplyInstalledUpdate and passes its error through", async () => {
    const { w, App } = fakeWindow();
    await expect(createWailsApi(w).ApplyInstalledUpdate()).rejects.toBe("the new executable did not start");
    expect(App.ApplyInstalledUpdate).toHaveBeenCalledTimes(1);
  });

  it("turns Go's null slices into arrays", async () => {
    const { w } = fakeWindow();
    const api = createWailsApi(w);
    const st = await api.Status();
    expect(st.backends).toEqual([]);
    expect(st.notices).toEqual([]);
    expect((await api.ScanOrphans()).decisions).toEqual([]);
  });

  it("passes rejections through", async () => {
    const { w } = fakeWindow();
    await expect(createWailsApi(w).ReapOrphans([1])).rejects.toBe("permission denied");
  });

  it("subscribes to the named events and hands over the payload", () => {
    const { w, runtime, handlers, unsub } = fakeWindow();
    const api = createWailsApi(w);
    const got: unknown[] = [];
    const off = api.onLogs((l) => got.push(l));
    api.onStatus((s) => got.push(s.backends.length));
    expect(runtime.EventsOn).toHaveBeenCalledWith("logs", expect.any(Function));
    handlers.get("logs")!([{ seq: 1 }]);
    handlers.get("logs")!(null);
    handlers.get("status")!({ ...status(), backends: null });
    expect(got).toEqual([[{ seq: 1 }], [], 0]);
    off();
    expect(unsub).toHaveBeenCalled();
  });

  it("detects whether Wails is present", () => {
    expect(hasWails(fakeWindow().w)).toBe(true);
    expect(hasWails({} as Window)).toBe(false);
  });

  it("normalizes a tree sample's null lists", () => {
    const s = normalizeStatus({
      ...status(),
      backends: [{ ...status().backends[0], command: null, tree: { sampled_at: "", changed_at: "", count: 0, rss_bytes: 0, fds: 0, nofile_soft: 0, processes: null, duplicates: null, warnings: null } }],
    });
    expect(s.backends[0].command).toEqual([]);
    expect(s.backends[0].tree!.processes).toEqual([]);
    expect(s.backends[0].tree!.warnings).toEqual([]);
  });

  it("normalizes the null lists inside a sample's processes and groups, and the last reap", () => {
    const proc = { pid: 7, ppid: 1, argv: null, rss_bytes: 0, fds: 0, started: "" };
    const s = normalizeStatus({
      ...status(),
      backends: [{
        ...status().backends[0],
        tree: { sampled_at: "", changed_at: "", count: 1, rss_bytes: 0, fds: 0, nofile_soft: 0, processes: [proc], duplicates: [{ argv: null, count: 2, pids: null }], warnings: [] },
      }],
      last_reap: { started_at: "", dry_run: false, scanned: 1, elapsed_ms: 1, decisions: [{ pid: 9, action: "spared", reason: "owned", detail: "", cmdline: null }] },
    });
    expect(s.backends[0].tree!.processes[0].argv).toEqual([]);
    expect(s.backends[0].tree!.duplicates[0]).toEqual({ argv: [], count: 2, pids: [] });
    expect(s.last_reap!.decisions[0].cmdline).toEqual([]);
  });
});

describe("platformQuoting", () => {
  const withRuntime = (env: () => Promise<{ platform: string }>) => ({ runtime: { Environment: env } }) as unknown as Window;
  it("is Windows' on Windows and the shell's elsewhere", async () => {
    expect(await platformQuoting(withRuntime(async () => ({ platform: "windows" })))).toBe("windows");
    expect(await platformQuoting(withRuntime(async () => ({ platform: "linux" })))).toBe("posix");
  });
  it("falls back to the shell's when the runtime cannot say", async () => {
    expect(await platformQuoting(withRuntime(async () => Promise.reject(new Error("no"))))).toBe("posix");
    expect(await platformQuoting({} as Window)).toBe("posix");
  });
});
