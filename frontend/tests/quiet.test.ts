// Quiet at rest (STYLE.md rule 17): nothing animates forever, no timer
// re-renders the page, and a hidden window runs nothing.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import css from "../src/style.css?raw";
import { App, TREE_RECHECK_MS } from "../src/app";
import { formatClockTime } from "../src/format";
import type { HermesAPI } from "../src/types";
import { backend, fakeApi, line, mounter, NOW, status } from "./fixtures";


const { mount, track } = mounter();


/** The declarations of every rule whose selector list includes sel. */
function rulesFor(sel: string): string[] {
  const out: string[] = [];
  for (const m of css.matchAll(/([^{}]+)\{([^{}]*)\}/g)) {
    const selectors = m[1]
      .replace(/\/\*[\s\S]*?\*\//g, "")
      .split(",")
      .map((x) => x.trim());
    if (selectors.includes(sel)) out.push(m[2]);
  }
  return out;
}

describe("motion at rest", () => {
  it("pulses a dot a few times only, never forever", () => {
    const pulse = rulesFor(".pulse .dot").join("\n");
    expect(pulse).toMatch(/animation:\s*pulse\b/);
    expect(pulse).not.toMatch(/infinite/);
    expect(pulse).toMatch(/animation:[^;]*\s\d+\s*;/); // a finite iteration count
  });

  it("keeps endless animation to the spinner of a pending call", () => {
    const endless = Array.from(css.matchAll(/([^{}]+)\{([^{}]*infinite[^{}]*)\}/g)).map((m) => m[1].replace(/\/\*[\s\S]*?\*\//g, "").trim());
    expect(endless).toEqual([".spinner"]);
  });

  it("gives a running time a box whose new text lays out nothing around it", () => {
    // Without size containment WebKit lays out and repaints the page around
    // a text that changes each second: 15% of a core under Xvfb.
    const clock = rulesFor(".clock").join("\n");
    expect(clock).toMatch(/contain:[^;]*\bsize\b[^;]*\blayout\b/);
    expect(clock).toMatch(/height:/);
    expect(rulesFor(".uptime").join("")).toMatch(/width:/);
    expect(rulesFor(".uptime-starting").join("")).toMatch(/width:/);
    expect(rulesFor(".instance-row .started").join("")).toMatch(/width:/);
  });

  it("still stops the pulse for people who asked for less motion", () => {
    const reduced = css.slice(css.indexOf("@media (prefers-reduced-motion: reduce)"));
    expect(reduced).toMatch(/\.pulse \.dot\s*\{\s*animation:\s*none;/);
  });

  it("gives a ready backend's dots no animation class, and a starting one's a pulse", async () => {
    const f = fakeApi(status([backend({ state: "starting", ready_at: undefined })]));
    const { root } = await mount(f.api);
    expect(root.querySelector(".backend .badge")!.classList.contains("pulse")).toBe(true);
    expect(root.querySelector(".glance-pill")!.classList.contains("pulse")).toBe(true);
    f.emitStatus(status([backend()]));
    expect(root.querySelector(".backend .badge .dot")).not.toBeNull();
    expect(root.querySelectorAll(".pulse, .spinner")).toHaveLength(0);
  });
});

// ---- timers ------------------------------------------------------------------

/** Mounts with the running-time timer on, under fake timers and clock. */
async function mountTimed(api: HermesAPI, initialTab: "backends" | "logs" | "tree" = "backends") {
  vi.useFakeTimers();
  vi.setSystemTime(NOW);
  const root = document.createElement("div");
  document.body.appendChild(root);
  const app = new App(api, root, { now: () => Date.now(), schedule: (fn) => fn(), initialTab });
  track(app, root);
  await app.start();
  await settle();
  return { app, root, render: vi.spyOn(app, "render") };
}

/** Lets resolved promises run without letting fake time pass. */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}

/** Records every change to the DOM under root. */
function watch(root: HTMLElement): MutationObserver {
  const mo = new MutationObserver(() => {});
  mo.observe(root, { subtree: true, childList: true, attributes: true, characterData: true });
  return mo;
}

let visibility: DocumentVisibilityState = "visible";
function setVisibility(v: DocumentVisibilityState): void {
  visibility = v;
  document.dispatchEvent(new Event("visibilitychange"));
}

beforeEach(() => {
  visibility = "visible";
  Object.defineProperty(document, "visibilityState", { configurable: true, get: () => visibility });
});

afterEach(() => {
  delete (document as { visibilityState?: unknown }).visibilityState; // back to jsdom's own
  vi.useRealTimers();
});

const ago = (ms: number) => new Date(NOW - ms).toISOString();
const uptime = (root: HTMLElement) => root.querySelector(".backend .uptime")!;
const started = (root: HTMLElement) => root.querySelector(".sidebar .started")!;
const clockOf = (iso: string) => formatClockTime(Date.parse(iso), NOW);

describe("process ages", () => {
  it("count from now, not from the tree's last sample, and tick in place", async () => {
    // The window is sent a tree only when it changes: this sample is 50 s
    // old, and the process started 10 s before it.
    const tree = {
      sampled_at: ago(50_000),
      changed_at: ago(50_000),
      count: 1,
      rss_bytes: 1024,
      fds: 3,
      nofile_soft: 0,
      processes: [{ pid: 4100, ppid: 4099, argv: ["hermes", "serve"], rss_bytes: 1024, fds: 3, started: ago(60_000) }],
      duplicates: [],
      warnings: [],
    };
    const f = fakeApi(status([backend({ pid: 4100, tree })]));
    const { root } = await mountTimed(f.api, "tree");
    const age = () => root.querySelector(".proc-table .age")!;
    expect(age().textContent).toBe("1 min");
    const changed: string[] = [];
    const mo = new MutationObserver((rs) => changed.push(...rs.map((r) => (r.target.parentElement as HTMLElement).className)));
    mo.observe(root, { subtree: true, childList: true, attributes: true, characterData: true });

    vi.advanceTimersByTime(60_000);
    await settle();
    mo.disconnect();

    expect(age().textContent).toBe("2 min");
    // The page re-read the status meanwhile (the same here): only the age moved.
    expect(changed).toEqual(["age clock"]);
  });

  it("are read again every few seconds while the page is shown, and only then (issue 23, item 7)", async () => {
    const f = fakeApi(status([backend()]));
    const { app } = await mountTimed(f.api, "tree");
    const reads = () => f.api.Status.mock.calls.length;
    let before = reads();
    vi.advanceTimersByTime(3 * TREE_RECHECK_MS);
    await settle();
    expect(reads() - before).toBe(3);

    setVisibility("hidden");
    await settle();
    before = reads();
    vi.advanceTimersByTime(3 * TREE_RECHECK_MS);
    expect(reads()).toBe(before);
    setVisibility("visible");
    await settle();

    app.setTab("backends");
    await settle();
    before = reads();
    vi.advanceTimersByTime(3 * TREE_RECHECK_MS);
    expect(reads()).toBe(before);
  });
});

describe("running times", () => {
  it("update in place each second in the first minute, and nothing else moves", async () => {
    const f = fakeApi(status([backend({ ready_at: ago(30_000) })], { instance: { ...status().instance, started_at: ago(40_000) } }));
    const { root, render } = await mountTimed(f.api);
    expect(uptime(root).textContent).toBe("up 30 s");
    expect(started(root).textContent).toBe(clockOf(ago(40_000)));
    expect(root.querySelectorAll(".clock[data-since]")).toHaveLength(1);
    const card = root.querySelector(".backend");
    const badge = root.querySelector(".backend .badge");
    const text = uptime(root).firstChild;
    const mo = watch(root);

    vi.advanceTimersByTime(1_000);

    expect(uptime(root).textContent).toBe("up 31 s");
    expect(render).not.toHaveBeenCalled();
    const changes = mo.takeRecords();
    expect(changes.map((r) => [r.type, (r.target.parentElement as HTMLElement).className])).toEqual([["characterData", "uptime clock"]]);
    expect(uptime(root).firstChild).toBe(text);
    expect(root.querySelector(".backend")).toBe(card);
    expect(root.querySelector(".backend .badge")).toBe(badge);
    expect(vi.getTimerCount()).toBe(1);
  });

  it("at rest, once coarse, wake the page only when the uptime's text changes", async () => {
    // The fixture: up 3m 12s ("up 3m"); the app started at 09:59 UTC, shown
    // as a clock time that does not change (until midnight).
    const f = fakeApi();
    const { root, render } = await mountTimed(f.api);
    expect(uptime(root).textContent).toBe("up 3 min");
    const start = started(root).textContent;
    expect(start).toBe(clockOf(status().instance.started_at));
    expect(vi.getTimerCount()).toBe(1); // one timeout, no interval
    const armed = vi.spyOn(globalThis, "setTimeout");
    const mo = watch(root);

    vi.advanceTimersByTime(47_999); // nothing reads differently: nothing runs
    expect(armed).not.toHaveBeenCalled();
    expect(mo.takeRecords()).toEqual([]);

    vi.advanceTimersByTime(1); // the uptime reaches 4m, and only it changes
    expect(uptime(root).textContent).toBe("up 4 min");
    expect(mo.takeRecords().map((r) => (r.target.parentElement as HTMLElement).className)).toEqual(["uptime clock"]);
    expect(armed).toHaveBeenCalledTimes(1);
    expect(armed).toHaveBeenLastCalledWith(expect.any(Function), 60_000);

    vi.advanceTimersByTime(10 * 60_000);
    expect(uptime(root).textContent).toBe("up 14 min");
    expect(started(root).textContent).toBe(start);
    expect(armed).toHaveBeenCalledTimes(11); // once a minute: the sidebar added no wakeup
    expect(render).not.toHaveBeenCalled();
    expect(vi.getTimerCount()).toBe(1);
  });

  it("show the app's start as a clock time that gains its date at midnight", async () => {
    vi.useFakeTimers();
    const startedAt = new Date(2024, 4, 1, 23, 58, 30).getTime(); // local time
    vi.setSystemTime(startedAt + 60_000); // 23:59:30
    const f = fakeApi(status([backend({ state: "stopped", pid: 0, ready_at: undefined })], { instance: { ...status().instance, started_at: new Date(startedAt).toISOString() } }));
    const root = document.createElement("div");
    document.body.appendChild(root);
    const app = new App(f.api, root, { now: () => Date.now(), schedule: (fn) => fn(), initialTab: "backends" });
    track(app, root);
    await app.start();
    await settle();
    expect(started(root).textContent).toBe("23:58");
    const armed = vi.spyOn(globalThis, "setTimeout");
    vi.advanceTimersByTime(29_999);
    expect(started(root).textContent).toBe("23:58");
    vi.advanceTimersByTime(1); // midnight: "today" is over
    expect(started(root).textContent).toBe("May 1 23:58");
    expect(armed).toHaveBeenCalledTimes(0); // and nothing is armed after it
    expect(vi.getTimerCount()).toBe(0);
  });

  it("arm no timer when nothing on the page counts", async () => {
    const f = fakeApi(status([backend({ state: "stopped", pid: 0, ready_at: undefined })], { instance: { ...status().instance, started_at: "0001-01-01T00:00:00Z" } }));
    const { root } = await mountTimed(f.api);
    expect(root.querySelector("[data-since]")).toBeNull();
    expect(vi.getTimerCount()).toBe(0);
  });

  it("follow a status event without a timer of their own", async () => {
    const f = fakeApi();
    const { root } = await mountTimed(f.api);
    f.emitStatus(status([backend({ state: "restarting", started_at: ago(5_000), ready_at: undefined })]));
    expect(uptime(root).textContent).toBe("starting for 5 s");
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(1_000);
    expect(uptime(root).textContent).toBe("starting for 6 s");
  });
});

describe("no refresh at rest", () => {
  it("calls Status once, then only listens: no safety poll", async () => {
    const f = fakeApi();
    await mountTimed(f.api);
    vi.advanceTimersByTime(10 * 60_000);
    expect(f.api.Status).toHaveBeenCalledTimes(1);
    expect(f.api.Logs).toHaveBeenCalledTimes(1);
  });
});

describe("a hidden window", () => {
  it("stops every timer and tells Go; shown again, it catches up once", async () => {
    const f = fakeApi();
    f.api.Logs.mockResolvedValueOnce([line(1, "a"), line(2, "b"), line(3, "c")]);
    const { app, root } = await mountTimed(f.api);
    expect(f.api.SetWindowVisible).not.toHaveBeenCalled();
    expect(vi.getTimerCount()).toBe(1);

    setVisibility("hidden");
    expect(f.api.SetWindowVisible).toHaveBeenLastCalledWith(false);
    expect(vi.getTimerCount()).toBe(0);
    const mo = watch(root);
    vi.advanceTimersByTime(10 * 60_000);
    expect(mo.takeRecords()).toEqual([]);
    expect(f.api.Status).toHaveBeenCalledTimes(1);

    f.api.Logs.mockResolvedValueOnce([line(4, "d"), line(5, "e")]);
    setVisibility("visible");
    expect(f.api.SetWindowVisible).toHaveBeenLastCalledWith(true);
    expect(f.api.SetWindowVisible).toHaveBeenCalledTimes(2);
    expect(uptime(root).textContent).toBe("up 13 min"); // 3m 12s + 10 minutes away, at once
    await settle();
    expect(f.api.Status).toHaveBeenCalledTimes(2);
    expect(f.api.Logs).toHaveBeenLastCalledWith("hermes", 3, 2000);
    expect(app.state.logs.lines().map((l) => l.text)).toEqual(["a", "b", "c", "d", "e"]);
    expect(vi.getTimerCount()).toBe(1);
  });

  it("starts quiet when the page loads hidden", async () => {
    visibility = "hidden";
    const f = fakeApi();
    await mountTimed(f.api);
    expect(f.api.SetWindowVisible).toHaveBeenCalledWith(false);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("fetches lines of a backend it had never seen through its first Logs() call", async () => {
    const f = fakeApi();
    await mountTimed(f.api);
    setVisibility("hidden");
    f.api.Status.mockResolvedValue(status([backend(), backend({ name: "research" })]));
    setVisibility("visible");
    await settle();
    expect(f.api.Logs.mock.calls).toEqual([
      ["hermes", 0, 500],
      ["research", 0, 500],
      ["hermes", 0, 2000],
    ]);
  });
});

describe("new log lines on the Logs tab", () => {
  /** The closest element with a class of the node a DOM change touched. */
  const where = (r: MutationRecord) => {
    const el = r.target.nodeType === Node.ELEMENT_NODE ? (r.target as Element) : r.target.parentElement!;
    return el.closest(".log-lines") ? "log-lines" : el.closest(".log-count") ? "log-count" : el.className;
  };

  it("touch only the rows and the count, not the page", async () => {
    const f = fakeApi();
    f.api.Logs.mockResolvedValue([line(1, "first"), line(2, "second")]);
    const { root, render } = await mountTimed(f.api, "logs");
    expect(root.querySelectorAll(".log-line")).toHaveLength(2);
    const mo = watch(root);

    f.emitLogs([line(3, "third")]);

    expect(render).not.toHaveBeenCalled();
    expect(Array.from(root.querySelectorAll(".log-text"), (e) => e.textContent)).toEqual(["first", "second", "third"]);
    expect(root.querySelector(".log-count")!.textContent).toBe("3 lines");
    expect(new Set(mo.takeRecords().map(where))).toEqual(new Set(["log-lines", "log-count"]));
  });

  it("render the page when more than the rows changes", async () => {
    const f = fakeApi();
    const { app, root, render } = await mountTimed(f.api, "logs");
    expect(root.querySelector(".log-lines")).toBeNull(); // "No log lines yet"

    f.emitLogs([line(1, "first")]); // the empty state gives way to the rows
    expect(render).toHaveBeenCalledTimes(1);
    expect(root.querySelectorAll(".log-line")).toHaveLength(1);

    f.emitLogs([line(2, "x", { backend: "research" })]); // a backend to filter by
    expect(render).toHaveBeenCalledTimes(2);
    expect(root.querySelector("select[data-input=log-backend]")).not.toBeNull();

    app.store.followLogs(false); // scrolled up: the jump button counts new lines
    app.update();
    f.emitLogs([line(3, "y")]);
    expect(render).toHaveBeenCalledTimes(4);
    expect(root.querySelector(".jump")!.textContent).toContain("1 new");
  });
});
