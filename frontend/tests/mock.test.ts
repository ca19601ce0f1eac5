// The browser preview's simulated engine: the kinds and the new methods.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createMockApi, scenarioFromLocation } from "../src/mock";

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.clearAllTimers();
  vi.useRealTimers();
  vi.restoreAllMocks();
});

/** Lets simulated time pass. */
const pass = (ms: number) => vi.advanceTimersByTimeAsync(ms);

/** Resolves a call that waits on simulated time (each takes at most 1 s). */
async function settle<T>(p: Promise<T>): Promise<T> {
  const done = p.then(
    (v) => ({ ok: true as const, v }),
    (e: unknown) => ({ ok: false as const, e }),
  );
  await pass(1_000);
  const r = await done;
  if (!r.ok) throw r.e;
  return r.v;
}

describe("createMockApi", () => {
  it("plays a dashboard with a page and an API-only server", async () => {
    const api = createMockApi("default");
    await pass(2_000);
    const st = await settle(api.Status());
    const [dash, serve] = st.backends;
    expect([dash.name, dash.kind, dash.state]).toEqual(["hermes", "dashboard", "ready"]);
    expect(dash.page_url).toBe(dash.url);
    expect(dash.command.slice(0, 3)).toEqual(["hermes", "dashboard", "--no-open"]);
    expect([serve.name, serve.kind, serve.state]).toEqual(["api", "serve", "ready"]);
    expect(serve.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(serve.page_url).toBeUndefined();
  });

  it("shows an attached Hermes in the attached scenario", async () => {
    const api = createMockApi("attached");
    const st = await settle(api.Status());
    expect(st.backends[0]).toMatchObject({ name: "hermes", state: "external", pid: 0, page_url: "http://127.0.0.1:9119/" });
  });

  it("opens the first page and gives connection details", async () => {
    const api = createMockApi("default");
    await pass(2_000);
    const open = vi.spyOn(window, "open").mockImplementation(() => null);
    const url = await settle(api.OpenHermes(""));
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(open).toHaveBeenCalledWith(url, "_blank", "noopener");
    await expect(settle(api.OpenHermes("api"))).rejects.toContain("API only");
    const details = await settle(api.ConnectionDetails("api"));
    expect(details).toContain("URL: http://127.0.0.1:");
    expect(details).toContain("X-Hermes-Session-Token: preview-token-not-real");
  });

  it("adds a backend that goes starting -> ready, refuses a taken name, and removes", async () => {
    const api = createMockApi("default");
    await pass(2_000);
    const added = api.AddBackend({ name: "research", kind: "serve", args: ["--profile", "research"] });
    await pass(300);
    await added;
    const research = async () => (await settle(api.Status())).backends.find((x) => x.name === "research")!;
    let b = await research();
    expect(b.state).toBe("starting");
    expect(b.command).toEqual(["hermes", "serve", "--host", "127.0.0.1", "--port", "0", "--profile", "research"]);
    await pass(1_000);
    b = await research();
    expect(b.state).toBe("ready");
    expect(b.page_url).toBeUndefined();
    await expect(settle(api.AddBackend({ name: "research", kind: "dashboard" }))).rejects.toContain("another backend has this name");
    await settle(api.RemoveBackend("research"));
    expect((await settle(api.Status())).backends.map((x) => x.name)).toEqual(["hermes", "api"]);
  });

  it("adds a backend on another host, connected, and refuses a host ssh would misread on its field", async () => {
    const api = createMockApi("default");
    await settle(api.AddBackend({ name: "far", kind: "serve", host: "ada@build-box" }));
    const far = (await settle(api.Status())).backends.find((x) => x.name === "far")!;
    expect([far.host, far.remote?.connection]).toEqual(["ada@build-box", "connected"]);
    await expect(settle(api.AddBackend({ name: "bad", kind: "serve", host: "-x" }))).rejects.toMatch(/^backend bad: Host: /);
  });

  it("shows a remote backend reconnecting in the remote scenario", async () => {
    const api = createMockApi("remote");
    const far = (await settle(api.Status())).backends.find((x) => x.host)!;
    expect(far.remote).toMatchObject({ connection: "reconnecting", attempt: 3 });
  });

  it("sends a hidden window nothing, and one status when it is shown", async () => {
    const api = createMockApi("default");
    const statuses: unknown[] = [];
    const lines: unknown[] = [];
    api.onStatus((s) => statuses.push(s));
    api.onLogs((l) => lines.push(l));
    await settle(api.SetWindowVisible(false));
    await pass(10_000);
    expect([statuses.length, lines.length]).toEqual([0, 0]);
    await api.SetWindowVisible(true);
    await pass(250);
    expect(statuses).toHaveLength(1);
  });

  it("offers Restart to apply in the update scenario, and applies it", async () => {
    expect(scenarioFromLocation("?scenario=update")).toBe("update");
    expect(scenarioFromLocation("?scenario=remote")).toBe("remote");
    const api = createMockApi("update");
    expect((await settle(api.Status())).instance.restart_to_apply).toBe(true);
    await settle(api.ApplyInstalledUpdate());
    const st = await settle(api.Status());
    expect(st.instance.restart_to_apply).toBeFalsy();
    expect(st.instance.version).toBe("0.4.1-dev");
    expect((await settle(createMockApi("default").Status())).instance.restart_to_apply).toBeFalsy();
  });
});
