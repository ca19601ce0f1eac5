import { describe, expect, it } from "vitest";
import { App } from "../src/app";
import { formatClock } from "../src/format";
import type { Tab } from "../src/state";
import type { ReapReason, Status } from "../src/types";
import { backend, deferred, fakeApi, flush, line, mounter, NOW, report, settingsView, status } from "./fixtures";

const { mount, track } = mounter();

const click = (el: Element | null) => {
  if (!el) throw new Error("element not found");
  (el as HTMLElement).click();
};
const byText = (root: HTMLElement, sel: string, text: string) =>
  Array.from(root.querySelectorAll(sel)).find((e) => e.textContent?.includes(text)) ?? null;


describe("start-up", () => {
  it("shows a loading state until Status resolves, then the backends", async () => {
    const f = fakeApi();
    const d = deferred<Status>();
    f.api.Status.mockReturnValueOnce(d.promise);
    const root = document.createElement("div");
    const app = new App(f.api, root, { now: () => NOW, schedule: (fn) => fn(), timers: false });
    track(app, root);
    const started = app.start();
    expect(root.textContent).toContain("Connecting to Hermes");
    expect(root.querySelector(".glance")!.textContent).toContain("Connecting");
    d.resolve(status());
    await started;
    await flush();
    expect(root.querySelector(".backend h2")!.textContent).toBe("hermes");
    expect(root.querySelector(".glance")!.textContent).toContain("1 backend ready");
    expect(root.querySelector(".uptime")!.textContent).toBe("up 3 min");
  });

  it("draws Connecting… once, and nothing more until Status answers (issue 23)", async () => {
    const f = fakeApi();
    const d = deferred<Status>();
    f.api.Status.mockReturnValueOnce(d.promise);
    const root = document.createElement("div");
    let frames = 0;
    const app = new App(f.api, root, { now: () => NOW, schedule: (fn) => (frames++, fn()), timers: false });
    track(app, root);
    const started = app.start();
    await flush();
    expect(root.textContent).toContain("Connecting to Hermes");
    expect(frames).toBe(0); // the first draw is synchronous; no other frame is asked for
    d.resolve(status());
    await started;
    expect(root.querySelector(".backend h2")!.textContent).toBe("hermes");
  });

  it("loads the first 500 log lines of each backend once, then relies on events", async () => {
    const f = fakeApi(status([backend(), backend({ name: "research" })]));
    const { app } = await mount(f.api);
    expect(f.api.Logs).toHaveBeenCalledTimes(2);
    expect(f.api.Logs).toHaveBeenCalledWith("hermes", 0, 500);
    expect(f.api.Logs).toHaveBeenCalledWith("research", 0, 500);
    f.emitStatus(status([backend(), backend({ name: "research" })]));
    await flush();
    expect(f.api.Logs).toHaveBeenCalledTimes(2);
    expect(f.api.Status).toHaveBeenCalledTimes(1);
    expect(app.state.load.kind).toBe("ready");
  });

  it("shows the error with a Retry button that tries again", async () => {
    const f = fakeApi();
    f.api.Status.mockRejectedValueOnce("control socket refused the connection");
    const { root } = await mount(f.api);
    expect(root.textContent).toContain("could not read its status");
    expect(root.textContent).toContain("control socket refused the connection");
    const retry = byText(root, "button", "Retry");
    expect(retry).not.toBeNull();
    click(retry);
    await flush();
    expect(f.api.Status).toHaveBeenCalledTimes(2);
    expect(root.querySelector(".backend")).not.toBeNull();
    expect(root.textContent).not.toContain("could not read its status");
  });

  it("unsubscribes from every event on destroy", async () => {
    const f = fakeApi();
    const { app } = await mount(f.api);
    expect(f.listeners()).toBe(3);
    app.destroy();
    expect(f.listeners()).toBe(0);
  });
});

describe("backend cards", () => {
  it("a failed backend shows its error, log tail and a Try again button that restarts it", async () => {
    const f = fakeApi(
      status([
        backend({ name: "research", state: "failed", pid: 0, url: undefined, port: 0, last_error: "exited with status 1 five times", log_tail: ["Traceback", "ModuleNotFoundError: feedparser"] }),
      ]),
    );
    const { root } = await mount(f.api);
    const card = root.querySelector(".backend")!;
    expect(card.querySelector(".badge")!.textContent).toBe("Failed");
    expect(card.textContent).toContain("exited with status 1 five times");
    expect(card.querySelector(".log-tail")!.textContent).toBe("Traceback\nModuleNotFoundError: feedparser");
    const again = byText(card as HTMLElement, "button", "Try again");
    expect(again).not.toBeNull();
    click(again);
    await flush();
    expect(f.api.Restart).toHaveBeenCalledWith("research");
  });

  it("a ready backend has Restart and Stop but no Try again", async () => {
    const f = fakeApi();
    const { root } = await mount(f.api);
    const labels = Array.from(root.querySelectorAll(".backend .card-actions button")).map((b) => b.textContent);
    expect(labels).toEqual(["Copy connection details", "Restart", "Stop", "Remove"]);
    expect(byText(root, "button", "Try again")).toBeNull();
    expect(root.querySelector(".command-text")!.textContent).toBe("hermes serve --port 0");
  });

  it("a stopped backend offers Start", async () => {
    const f = fakeApi(status([backend({ state: "stopped", pid: 0, url: undefined })]));
    const { root } = await mount(f.api);
    click(byText(root, ".backend button", "Start"));
    await flush();
    expect(f.api.StartBackend).toHaveBeenCalledWith("hermes");
  });

  it("shows the address as text, not as a link that opens it", async () => {
    const f = fakeApi();
    const { root } = await mount(f.api);
    expect(byText(root, ".fact", "Address")!.textContent).toContain("http://127.0.0.1:43817/");
    expect(root.querySelector('.backend .fact a, .backend .fact button, [data-action="open-url"]')).toBeNull();
  });

  it("shows a busy button while the call is pending and its error inline after", async () => {
    const f = fakeApi();
    const d = deferred<void>();
    f.api.StopBackend.mockReturnValueOnce(d.promise);
    const { root } = await mount(f.api);
    click(byText(root, ".backend button", "Stop"));
    const busy = root.querySelector<HTMLButtonElement>('.backend [data-action="stop"]')!;
    expect(busy.disabled).toBe(true);
    expect(busy.getAttribute("aria-busy")).toBe("true");
    expect(busy.textContent).toBe("Stopping…");
    expect(root.querySelector<HTMLButtonElement>('.backend [data-action="restart"]')!.disabled).toBe(true);
    // A second click while pending does nothing.
    click(busy);
    expect(f.api.StopBackend).toHaveBeenCalledTimes(1);
    d.reject("backend is busy restarting");
    await flush();
    const stop = root.querySelector<HTMLButtonElement>('.backend [data-action="stop"]')!;
    expect(stop.disabled).toBe(false);
    expect(root.querySelector(".backend .inline-error")!.textContent).toBe("Backend is busy restarting");
  });

  it("updates from status events", async () => {
    const f = fakeApi(status([backend({ state: "starting", ready_at: undefined })]));
    const { root } = await mount(f.api);
    expect(root.querySelector(".backend .badge")!.classList.contains("pulse")).toBe(true);
    f.emitStatus(status([backend({ restarts: 2 })]));
    expect(root.querySelector(".backend .badge")!.textContent).toBe("Ready");
    expect(byText(root, ".fact", "Restarts")!.textContent).toBe("Restarts2");
  });

  it("notes why the backend was last restarted, quietly and in full on hover", async () => {
    const why = "restarted before it ran out of file descriptors: pid 123 (node watcher.js) has 245 of 256 files open (96%): it will fail with EMFILE soon";
    const f = fakeApi(status([backend({ restarts: 2, last_restart: why })]));
    const { root } = await mount(f.api);
    const note = root.querySelector(".backend .last-restart")!;
    expect(note.textContent).toBe(`Last restart:${why}`);
    expect(note.getAttribute("title")).toBe(why);
    // A note, not an error.
    expect(root.querySelector(".backend .failure, .backend .inline-error, .backend .banner")).toBeNull();
    expect(note.getAttribute("role")).toBeNull();
    // It stays once the backend is ready again, and follows status events.
    f.emitStatus(status([backend({ restarts: 3, last_restart: "restarted on request" })]));
    expect(root.querySelector(".backend .last-restart-text")!.textContent).toBe("restarted on request");
  });

  it("shows no restart note without restarts or a reason, nor one that repeats the exit shown", async () => {
    const f = fakeApi(status([backend({ restarts: 0, last_restart: "restarted on request" })]));
    const { root } = await mount(f.api);
    expect(root.querySelector(".last-restart")).toBeNull();
    f.emitStatus(status([backend({ restarts: 1 })]));
    expect(root.querySelector(".last-restart")).toBeNull();
    f.emitStatus(status([backend({ state: "restarting", pid: 0, restarts: 1, last_error: "exited with status 2", last_restart: "exited with status 2" })]));
    expect(root.querySelector(".restart-note")!.textContent).toBe("Last exit: exited with status 2");
    expect(root.querySelector(".last-restart")).toBeNull();
  });

  it("flags tree warnings with a chip that opens the Process tree", async () => {
    const tree = {
      sampled_at: "2024-05-01T10:03:10Z",
      changed_at: "2024-05-01T10:03:10Z",
      count: 1,
      rss_bytes: 1024,
      fds: 250,
      nofile_soft: 256,
      processes: [],
      duplicates: [],
      warnings: [
        { kind: "fd-pressure" as const, message: "pid 4100 (hermes) has 250 of 256 files open (98%)" },
        { kind: "rss-growth" as const, message: "memory grew 40% in 10 minutes" },
      ],
    };
    const f = fakeApi(status([backend({ tree })]));
    const { root, app } = await mount(f.api);
    const chip = root.querySelector<HTMLElement>(".backend .card-title .warn-chip")!;
    expect(chip.textContent).toBe("2 warnings");
    expect(chip.getAttribute("title")).toContain("250 of 256 files open");
    expect(chip.getAttribute("title")).toContain("memory grew 40%");
    click(chip);
    expect(app.state.tab).toBe("tree");
    // No chip without warnings, or when the sample is of a stopped backend.
    f.emitStatus(status([backend({ tree: { ...tree, warnings: [] } })]));
    app.setTab("backends");
    expect(root.querySelector(".warn-chip")).toBeNull();
    f.emitStatus(status([backend({ state: "stopped", pid: 0, tree })]));
    expect(root.querySelector(".warn-chip")).toBeNull();
  });

  it("shows an empty state without backends", async () => {
    const { root } = await mount(fakeApi(status([])).api);
    expect(root.textContent).toContain("No backend running");
  });
});

describe("process tree", () => {
  it("renders the indented tree, totals and duplicates", async () => {
    const tree = {
      sampled_at: "2024-05-01T10:03:10Z",
      changed_at: "2024-05-01T10:01:10Z",
      count: 4,
      rss_bytes: 40 * 1024 * 1024,
      fds: 212,
      nofile_soft: 4096,
      processes: [
        { pid: 4100, ppid: 4099, argv: ["hermes", "serve"], rss_bytes: 1024 * 1024, fds: 10, started: "2024-05-01T10:00:00Z" },
        { pid: 4101, ppid: 4100, argv: ["mimir", "--db", "x"], rss_bytes: 2048, fds: 5, started: "2024-05-01T10:01:10Z" },
        { pid: 4102, ppid: 4100, argv: ["mimir", "--db", "x"], rss_bytes: 2048, fds: 5, started: "2024-05-01T10:01:10Z" },
        { pid: 4200, ppid: 4190, argv: ["git", "daemon"], rss_bytes: 2048, fds: 5, started: "2024-05-01T10:01:10Z" },
      ],
      duplicates: [{ argv: ["mimir", "--db", "x"], count: 2, pids: [4101, 4102] }],
      warnings: [{ kind: "fd-pressure" as const, message: "Open files are close to the limit" }],
    };
    const { root } = await mount(fakeApi(status([backend({ tree })])).api, "tree");
    const rows = Array.from(root.querySelectorAll(".proc-table tbody tr"));
    expect(rows.map((r) => r.querySelector("td")!.textContent)).toEqual(["4100", "4101", "4102", "4200"]);
    expect(rows[1].classList.contains("is-dup")).toBe(true);
    expect(rows[3].classList.contains("is-orphan")).toBe(true);
    expect((rows[1].querySelector(".tree-cell") as HTMLElement).style.getPropertyValue("--depth")).toBe("1");
    expect(rows[0].textContent).toContain("3 min"); // started 10:00:00, now 10:03:14
    expect(root.querySelector(".totals")!.textContent).toContain("212 / 4096");
    expect(root.querySelector(".totals")!.textContent).toContain("40.0 MB");
    expect(root.querySelector(".dups")!.textContent).toContain("2× mimir --db x");
    expect(root.querySelector(".banner-error")!.textContent).toContain("Open files are close to the limit");
  });

  it("says a remote backend's tree is its host's: the host on the card, its PIDs the host's (issue 33)", async () => {
    const tree = {
      sampled_at: "2024-05-01T10:03:10Z",
      changed_at: "2024-05-01T10:03:10Z",
      count: 1,
      rss_bytes: 1024 * 1024,
      fds: 12,
      nofile_soft: 1024,
      processes: [{ pid: 77, ppid: 70, argv: ["hermes", "serve"], rss_bytes: 1024 * 1024, fds: 12, started: "2024-05-01T10:00:00Z" }],
      duplicates: [],
      warnings: [],
    };
    const { root } = await mount(fakeApi(status([backend({ tree, host: "me@box" })])).api, "tree");
    expect(root.querySelector(".proc-table thead")!.textContent).toContain("Remote PID");
    expect(root.querySelector(".tree-card .host-chip")!.textContent).toBe("on me@box");
    expect(root.querySelector(".proc-table tbody td")!.textContent).toBe("77");
  });

  it("says since when the tree is unchanged and when it was last checked, reading it again when the page opens", async () => {
    const tree = {
      sampled_at: "2024-05-01T10:03:10Z",
      changed_at: "2024-05-01T10:01:10Z",
      count: 1,
      rss_bytes: 1024,
      fds: 3,
      nofile_soft: 0,
      processes: [{ pid: 4100, ppid: 4099, argv: ["hermes", "serve"], rss_bytes: 1024, fds: 3, started: "2024-05-01T10:00:00Z" }],
      duplicates: [],
      warnings: [],
    };
    const f = fakeApi(status([backend({ pid: 4100, tree })]));
    const { app, root } = await mount(f.api);
    const calls = f.api.Status.mock.calls.length;
    // The engine checked again since the window was last sent the tree.
    f.api.Status.mockResolvedValue(status([backend({ pid: 4100, tree: { ...tree, sampled_at: "2024-05-01T10:03:14Z" } })]));
    app.setTab("tree");
    await flush();
    expect(f.api.Status.mock.calls.length).toBe(calls + 1);
    const clock = (iso: string) => formatClock(iso);
    expect(root.querySelector(".tree-checked")!.textContent).toBe(
      `Unchanged since ${clock("2024-05-01T10:01:10Z")}, checked ${clock("2024-05-01T10:03:14Z")}`,
    );
    expect(root.textContent).not.toContain("refreshed every few seconds");
    f.emitStatus(status([backend({ pid: 4100, tree: { ...tree, changed_at: tree.sampled_at } })]));
    await flush();
    expect(root.querySelector(".tree-checked")!.textContent).toBe(`Checked ${clock("2024-05-01T10:03:10Z")}`);
  });

  it("puts the most urgent warning first, with a heading, and marks files near the limit", async () => {
    const tree = {
      sampled_at: "2024-05-01T10:03:10Z",
      changed_at: "2024-05-01T10:03:10Z",
      count: 2,
      rss_bytes: 2048,
      fds: 260,
      nofile_soft: 256,
      processes: [
        { pid: 4100, ppid: 4099, argv: ["hermes", "serve"], rss_bytes: 1024, fds: 10, started: "2024-05-01T10:00:00Z" },
        { pid: 4101, ppid: 4100, argv: ["node", "watcher.js"], rss_bytes: 1024, fds: 250, started: "2024-05-01T10:00:00Z" },
      ],
      duplicates: [],
      warnings: [
        { kind: "duplicates" as const, message: "4 copies of mimir" },
        { kind: "fd-pressure" as const, message: "pid 4101 has 250 of 256 files open" },
        { kind: "rss-growth" as const, message: "memory keeps growing" },
      ],
    };
    const { root } = await mount(fakeApi(status([backend({ tree })])).api, "tree");
    const banners = Array.from(root.querySelectorAll(".tree-card .banner"));
    expect(banners.map((b) => b.querySelector(".banner-title")!.textContent)).toEqual([
      "Running out of open files",
      "Memory keeps growing",
      "Duplicate helpers",
    ]);
    expect(banners[0].classList.contains("banner-error")).toBe(true);
    expect(banners[0].textContent).toContain("pid 4101 has 250 of 256 files open");
    const files = Array.from(root.querySelectorAll(".proc-table tbody tr")).map((r) => r.querySelectorAll("td")[3]);
    expect(files.map((td) => td.classList.contains("is-high"))).toEqual([false, true]);
  });

  it("says when there is nothing to show", async () => {
    const { root } = await mount(fakeApi(status([backend({ state: "stopped", pid: 0 })])).api, "tree");
    expect(root.textContent).toContain("No backend running");
    const f2 = await mount(
      fakeApi(status([backend({ tree: { sampled_at: "", changed_at: "", count: 0, rss_bytes: 0, fds: 0, nofile_soft: 0, processes: [], duplicates: [], warnings: [] } })])).api,
      "tree",
    );
    expect(f2.root.textContent).toContain("No child processes");
  });
});

describe("logs", () => {
  it("merges the initial Logs() with overlapping events, filters and tints streams", async () => {
    const f = fakeApi();
    f.api.Logs.mockResolvedValueOnce([line(1, "boot"), line(2, "Error: disk", { stream: "stderr" })]);
    const { root } = await mount(f.api, "logs");
    f.emitLogs([line(2, "Error: disk", { stream: "stderr" }), line(3, "launcher says hi", { stream: "launcher" })]);
    await flush();
    const texts = () => Array.from(root.querySelectorAll(".log-line .log-text")).map((e) => e.textContent);
    expect(texts()).toEqual(["boot", "Error: disk", "launcher says hi"]);
    expect(root.querySelectorAll(".log-line.stream-stderr")).toHaveLength(1);
    expect(root.querySelectorAll(".log-line.stream-launcher")).toHaveLength(1);
    const input = root.querySelector<HTMLInputElement>('[data-input="log-filter"]')!;
    input.value = "DISK";
    input.dispatchEvent(new Event("input", { bubbles: true }));
    expect(texts()).toEqual(["Error: disk"]);
    expect(root.querySelector(".log-line mark")!.textContent).toBe("disk");
    expect(root.querySelector(".log-count")!.textContent).toBe("1 of 3 lines");
    input.value = "nothing-like-this";
    input.dispatchEvent(new Event("input", { bubbles: true }));
    expect(root.textContent).toContain("No matching lines");
  });

  it("pauses auto-scroll when the user scrolls up and offers Jump to latest", async () => {
    const f = fakeApi();
    f.api.Logs.mockResolvedValueOnce([line(1, "a"), line(2, "b")]);
    const { root, app } = await mount(f.api, "logs");
    const scroller = root.querySelector<HTMLElement>(".log-scroll")!;
    Object.defineProperty(scroller, "scrollHeight", { configurable: true, value: 1000 });
    Object.defineProperty(scroller, "clientHeight", { configurable: true, value: 300 });
    scroller.scrollTop = 100; // far from the bottom (700)
    scroller.dispatchEvent(new Event("scroll"));
    expect(app.state.logFollow).toBe(false);
    expect(root.querySelector(".jump")!.textContent).toBe("Jump to latest");
    f.emitLogs([line(3, "c"), line(4, "d")]);
    expect(root.querySelector(".jump")!.textContent).toBe("2 new · Jump to latest");
    expect(scroller.scrollTop).toBe(100); // left where the user put it
    click(root.querySelector(".jump"));
    expect(app.state.logFollow).toBe(true);
    expect(root.querySelector(".jump")).toBeNull();
    expect(scroller.scrollTop).toBe(700);
  });

  it("keeps only the newest 2000 lines", async () => {
    const f = fakeApi();
    const { app } = await mount(f.api, "logs");
    f.emitLogs(Array.from({ length: 2100 }, (_, i) => line(i + 1, `l${i + 1}`)));
    expect(app.state.logs.size).toBe(2000);
    expect(app.state.logs.lines()[0].text).toBe("l101");
  });

  it("saves a diagnostic report, says where, and opens its folder on request", async () => {
    const f = fakeApi();
    const { root } = await mount(f.api, "logs");
    expect(root.querySelector(".report-saved")).toBeNull();
    click(byText(root, "button", "Save a diagnostic report…"));
    await flush();
    expect(f.api.SaveDiagnosticReport).toHaveBeenCalledTimes(1);
    expect(root.querySelector(".report-saved")!.textContent).toContain("Diagnostic report saved to /home/u/Downloads/hermes-desktop-report-20261203-190000.zip");
    expect(root.querySelector(".report-saved")!.textContent).toContain("Secrets are redacted");
    click(byText(root, "button", "Show in folder"));
    await flush();
    expect(f.api.OpenReportFolder).toHaveBeenCalledTimes(1);
    expect(root.querySelector(".page-head .action-note")!.textContent).toBe("Opened in your file manager");
  });

  it("says why a diagnostic report could not be saved", async () => {
    const f = fakeApi();
    f.api.SaveDiagnosticReport.mockRejectedValueOnce("diagnose: save /x.zip: permission denied");
    const { root } = await mount(f.api, "logs");
    click(byText(root, "button", "Save a diagnostic report…"));
    await flush();
    expect(root.querySelector(".page-head .action-error")!.textContent).toBe("Diagnose: save /x.zip: permission denied");
    expect(root.querySelector(".report-saved")).toBeNull();
  });

  it("opens the log folder and shows its error inline", async () => {
    const f = fakeApi();
    f.api.OpenLogFolder.mockRejectedValueOnce("no file manager");
    const { root } = await mount(f.api, "logs");
    click(byText(root, "button", "Open log folder"));
    await flush();
    expect(f.api.OpenLogFolder).toHaveBeenCalledTimes(1);
    expect(root.querySelector(".page-head .action-error")!.textContent).toBe("No file manager");
  });

  it("says Opening…, then that the folder opened (issue 23: no feedback before)", async () => {
    const f = fakeApi();
    let opened!: () => void;
    f.api.OpenLogFolder.mockReturnValueOnce(new Promise<void>((r) => (opened = r)));
    const { root } = await mount(f.api, "logs");
    click(byText(root, "button", "Open log folder"));
    await flush();
    expect(root.querySelector('[data-action="open-log-folder"]')!.textContent).toBe("Opening…");
    opened();
    await flush();
    expect(root.querySelector(".page-head .action-note")!.textContent).toBe("Opened in your file manager");
    expect(root.querySelector('[data-action="open-log-folder"]')!.textContent).toBe("Open log folder");
  });

  it("shows a backend selector only with more than one backend", async () => {
    const one = await mount(fakeApi().api, "logs");
    one.app.addLogs([line(1, "x")]);
    expect(one.root.querySelector('[data-input="log-backend"]')).toBeNull();
    const two = await mount(fakeApi(status([backend(), backend({ name: "research" })])).api, "logs");
    two.app.addLogs([line(1, "x")]);
    expect(two.root.querySelector('[data-input="log-backend"]')).not.toBeNull();
  });
});

describe("boot reap", () => {
  it("counts the reaped in the sidebar until the Boot reap page is seen; a new report counts again (issue 23)", async () => {
    const f = fakeApi(status([backend()], { boot_reap: report() }));
    const { root, app } = await mount(f.api);
    const count = () => root.querySelector('[data-tab="reap"] .nav-count')?.textContent ?? null;
    expect(count()).toBe("2");
    app.setTab("reap");
    await flush();
    expect(count()).toBeNull();
    app.setTab("backends");
    app.applyStatus(status([backend()], { boot_reap: report() })); // the same report again
    await flush();
    expect(count()).toBeNull();
    f.emitReap(report({ started_at: "2024-05-01T10:30:00Z", decisions: [{ pid: 31, action: "reaped", reason: "owner-dead", detail: "", cmdline: ["x"] }] }));
    await flush();
    expect(count()).toBe("1");
  });

  it("shows the boot report with plain-word reasons", async () => {
    const { root } = await mount(fakeApi(status([backend()], { boot_reap: report() })).api, "reap");
    expect(root.querySelector(".summary")!.textContent).toBe("Reaped 2, spared 3 — scanned 412 processes in 21 ms");
    expect(root.textContent).toContain("Its launcher has exited");
    expect(root.textContent).toContain("Its launcher exited.");
    expect(root.querySelector(".cmd-trunc")!.getAttribute("title")).toBe("hermes serve");
  });

  it("lists the remote reaps' decisions with their host, remote PIDs said to be the host's (issue 33)", async () => {
    const remote = [
      { host: "me@box", at: "2024-05-01T10:02:00Z", ownership_id: "a".repeat(32), pid: 4321, action: "reaped" as const, reason: "its watchdog (PID 4320) is gone" },
      { host: "me@box", at: "2024-05-01T10:03:00Z", ownership_id: "b".repeat(32), pid: 0, action: "cleaned" as const, reason: "its watchdog and backend are gone" },
    ];
    const { root } = await mount(fakeApi(status([backend()], { boot_reap: report({ remote }) })).api, "reap");
    const table = root.querySelector(".remote-reap-table")!;
    expect(table.querySelector("thead")!.textContent).toContain("Remote PID");
    const rows = Array.from(table.querySelectorAll("tbody tr")).map((r) => Array.from(r.querySelectorAll("td")).map((c) => c.textContent));
    expect(rows).toEqual([
      ["me@box", "—", "Cleaned up", "its watchdog and backend are gone"],
      ["me@box", "4321", "Reaped", "its watchdog (PID 4320) is gone"],
    ]);
    expect(root.textContent).toContain("On remote hosts");
  });

  it("says an empty spared cgroup instead of 'no candidate processes' (issue 31, item 11)", async () => {
    const cg = { cgroup: "/hermes-backend-0123", action: "spared" as const, reason: "fail-closed" as const, detail: "no backend this Hermes Desktop saved ran in it", members: 0, processes: [] };
    const { root } = await mount(fakeApi(status([backend()], { boot_reap: report({ decisions: [], cgroups: [cg] }) })).api, "reap");
    expect(root.textContent).not.toContain("No candidate processes were found.");
    expect(root.textContent).toContain("No candidate processes outside backend cgroups.");
    expect(root.textContent).toContain("An empty backend cgroup (/hermes-backend-0123) was spared: no backend this Hermes Desktop saved ran in it");
  });

  it("scans (dry run), asks, and reaps only after Confirm", async () => {
    const f = fakeApi();
    f.api.ScanOrphans.mockResolvedValueOnce(
      report({ dry_run: true, decisions: [
        { pid: 21, action: "would-reap", reason: "owner-dead", detail: "gone", cmdline: ["a"] },
        // A word this page has no label for is shown as it is.
        { pid: 22, action: "would-reap", reason: "brand-new" as ReapReason, detail: "new", cmdline: ["b"] },
        { pid: 23, action: "spared", reason: "ancestor", detail: "me", cmdline: ["c"] },
      ] }),
    );
    const { root } = await mount(f.api, "reap");
    expect(root.textContent).toContain("No reap has run yet");
    click(byText(root, "button", "Scan now"));
    await flush();
    expect(f.api.ScanOrphans).toHaveBeenCalledTimes(1);
    expect(f.api.ReapOrphans).not.toHaveBeenCalled();
    expect(root.querySelector(".confirm-title")!.textContent).toBe("Reap these 2 processes?");
    expect(root.querySelectorAll(".confirm tbody tr")).toHaveLength(2);
    expect(root.querySelector(".confirm")!.textContent).toContain("brand-new");
    click(byText(root, ".confirm button", "Reap 2 processes"));
    await flush();
    expect(f.api.ReapOrphans).toHaveBeenCalledTimes(1);
    expect(f.api.ReapOrphans).toHaveBeenCalledWith([21, 22]);
    expect(root.querySelector(".confirm")).toBeNull();
    expect(root.textContent).toContain("2 processes were stopped.");
    expect(root.querySelector(".card h2")!.textContent).toBe("Last reap");
  });

  it("Cancel leaves everything running", async () => {
    const f = fakeApi();
    f.api.ScanOrphans.mockResolvedValueOnce(report({ dry_run: true, decisions: [{ pid: 21, action: "would-reap", reason: "owner-dead", detail: "", cmdline: [] }] }));
    const { root } = await mount(f.api, "reap");
    click(byText(root, "button", "Scan now"));
    await flush();
    expect(root.querySelector(".confirm-title")!.textContent).toBe("Reap this process?");
    click(byText(root, ".confirm button", "Cancel"));
    await flush();
    expect(root.querySelector(".confirm")).toBeNull();
    expect(f.api.ReapOrphans).not.toHaveBeenCalled();
  });

  it("says so plainly when the dry run finds nothing", async () => {
    const f = fakeApi();
    f.api.ScanOrphans.mockResolvedValueOnce(report({ dry_run: true, scanned: 90, decisions: [] }));
    const { root } = await mount(f.api, "reap");
    click(byText(root, "button", "Scan now"));
    await flush();
    expect(root.textContent).toContain("Nothing to reap.");
    expect(root.textContent).toContain("No leftover processes were found among 90 processes.");
    expect(root.querySelector(".confirm")).toBeNull();
  });

  it("shows a later reap event instead of the boot report", async () => {
    const f = fakeApi(status([backend()], { boot_reap: report() }));
    const { root } = await mount(f.api, "reap");
    f.emitReap(report({ scanned: 7, decisions: [] }));
    expect(root.querySelector(".summary")!.textContent).toBe("Reaped nothing — scanned 7 processes in 21 ms");
  });
});

describe("settings", () => {
  const type = (root: HTMLElement, field: string, value: string) => {
    const input = root.querySelector<HTMLInputElement>(`[data-field="${field}"]`)!;
    input.value = value;
    input.dispatchEvent(new Event("input", { bubbles: true }));
  };
  const submit = (root: HTMLElement) => root.querySelector("form")!.dispatchEvent(new Event("submit", { bubbles: true, cancelable: true }));

  it("shows defaults as placeholders and notices as banners", async () => {
    const f = fakeApi(status([backend()], { notices: ["config.json was invalid and was set aside"] }));
    f.api.GetSettings.mockResolvedValueOnce(settingsView({ backend_command: "" }, "Using defaults"));
    const { root } = await mount(f.api, "settings");
    expect(root.querySelector<HTMLInputElement>('[data-field="backend_command"]')!.placeholder).toBe("hermes serve");
    const banners = Array.from(root.querySelectorAll(".banner-warn")).map((b) => b.textContent);
    expect(banners).toEqual(["Using defaults", "config.json was invalid and was set aside"]);
    expect(root.querySelector<HTMLButtonElement>('[data-action="settings-save"]')!.disabled).toBe(true);
  });

  it("shows a notice that comes from both places once", async () => {
    const f = fakeApi(status([backend()], { notices: ["defaults are in use"] }));
    f.api.GetSettings.mockResolvedValueOnce(settingsView({}, "defaults are in use"));
    const { root } = await mount(f.api, "settings");
    expect(root.querySelectorAll(".banner-warn")).toHaveLength(1);
  });

  it("validates before saving and does not call SaveSettings on bad input", async () => {
    const f = fakeApi();
    const { root } = await mount(f.api, "settings");
    type(root, "grace", "five seconds");
    submit(root);
    await flush();
    expect(f.api.SaveSettings).not.toHaveBeenCalled();
    expect(root.querySelector(".field.has-error .field-error")!.textContent).toContain("Use a duration like 5s");
    type(root, "grace", "7s");
    expect(root.querySelector(".field.has-error")).toBeNull();
  });

  it("saves and says to restart the app for the rest", async () => {
    const f = fakeApi();
    const { root } = await mount(f.api, "settings");
    type(root, "grace", " 7s ");
    expect(root.querySelector(".field .chip-accent")).not.toBeNull();
    submit(root);
    await flush();
    // Only the edit: Go lays it over what is saved now.
    expect(f.api.SaveSettings).toHaveBeenCalledWith({ settings: { grace: "7s" }, fields: ["grace"] });
    expect(root.querySelector(".save-result.ok")!.textContent).toBe("Saved — restart Hermes Desktop to apply; backends you add from now on use it at once");
  });

  it("offers to restart Hermes Desktop for the saved settings waiting for it, saying whether the backends restart", async () => {
    const f = fakeApi();
    f.api.SaveSettings.mockResolvedValueOnce({ ...settingsView({ grace: "7s" }), pending: ["grace", "sample_interval"], pending_restarts_backends: true });
    const { app, root } = await mount(f.api, "settings");
    const bar = () => root.querySelector(".form-actions")!;
    const restart = () => bar().querySelector('button[data-action="relaunch"]');
    expect(restart()).toBeNull();
    type(root, "grace", "7s");
    submit(root);
    await flush();
    expect(bar().querySelector(".pending-note")!.textContent).toBe("Waiting for a restart: Stop grace period, Sample interval — your backends restart with it.");
    const d = deferred<void>();
    f.api.Relaunch.mockReturnValueOnce(d.promise);
    click(restart());
    await flush();
    expect(f.api.Relaunch).toHaveBeenCalledTimes(1);
    expect(restart()!.textContent).toContain("Restarting…");
    d.resolve();
    await flush();
    // The window is about to close: the button stays busy.
    expect(app.state.busy.has("relaunch")).toBe(true);
  });

  it("says on a failed card that Try again keeps the old command once a new one is saved, and offers the restart", async () => {
    const f = fakeApi(status([backend({ state: "failed", pid: 0, url: undefined, port: 0, last_error: "exited with status 127" })]));
    f.api.SaveSettings.mockResolvedValueOnce({ ...settingsView({ backend_command: "hermes serve" }), pending: ["backend_command"], pending_restarts_backends: true });
    const { app, root } = await mount(f.api);
    expect(root.querySelector(".stale-settings")).toBeNull();
    app.setTab("settings");
    await flush();
    type(root, "backend_command", "hermes serve");
    submit(root);
    await flush();
    app.setTab("backends");
    await flush();
    expect(root.querySelector(".failure .stale-settings")!.textContent).toContain("are not used by Try again");
    click(root.querySelector('.failure button[data-action="relaunch"]'));
    await flush();
    expect(f.api.Relaunch).toHaveBeenCalledTimes(1);
  });

  it("says when a restart keeps the backends running, and shows why it failed", async () => {
    const f = fakeApi();
    f.api.GetSettings.mockResolvedValueOnce({ ...settingsView({ sample_interval: "2s" }), pending: ["sample_interval"], pending_restarts_backends: false });
    f.api.Relaunch.mockRejectedValueOnce("handoff: the new instance did not answer within 2m0s");
    const { root } = await mount(f.api, "settings");
    const bar = root.querySelector(".form-actions")!;
    expect(bar.querySelector(".pending-note")!.textContent).toBe("Waiting for a restart: Sample interval — your backends keep running.");
    click(bar.querySelector('button[data-action="relaunch"]'));
    await flush();
    expect(root.querySelector(".form-actions .form-status")!.textContent).toContain("the new instance did not answer");
  });

  it("puts Go's refusal under its field, once, in plain words (issue 23)", async () => {
    const f = fakeApi();
    // JavaScript cannot tell "(((" from a pattern only Go reads: Go decides.
    f.api.SaveSettings.mockRejectedValueOnce("Ready pattern: not a valid regular expression: missing closing )");
    const { root } = await mount(f.api, "settings");
    type(root, "ready_regex", "(((");
    submit(root);
    await flush();
    expect(f.api.SaveSettings).toHaveBeenCalled();
    expect(root.querySelector("#set-ready_regex-err")!.textContent).toBe("Not a valid regular expression: missing closing )");
    expect(root.querySelector('[data-field="ready_regex"]')!.getAttribute("aria-invalid")).toBe("true");
    expect(root.querySelector(".save-result.bad")!.textContent).toBe("Fix the highlighted field, then save again.");
    expect(root.textContent!.split("missing closing").length - 1).toBe(1);
    expect(root.textContent).not.toContain("regexp");
  });

  it("shows duration defaults as a person says them, not Go's 3m0s", async () => {
    const f = fakeApi();
    const v = settingsView({});
    f.api.GetSettings.mockResolvedValueOnce({ ...v, defaults: { ...v.defaults, min_orphan_age: "3m0s", grace: "1m30s" } });
    const { root } = await mount(f.api, "settings");
    expect(root.querySelector<HTMLInputElement>('[data-field="min_orphan_age"]')!.placeholder).toBe("3 min (default)");
    expect(root.querySelector<HTMLInputElement>('[data-field="grace"]')!.placeholder).toBe("1 min 30 s (default)");
  });

  describe("and the backend list (issue 23)", () => {
    const addCustom = async (root: HTMLElement, name: string, command: string) => {
      click(byText(root, ".page-head button", "Add backend"));
      const set = (field: string, value: string) => {
        const el = root.querySelector<HTMLInputElement>(`[data-input="add"][data-field="${field}"]`)!;
        el.value = value;
        el.dispatchEvent(new Event("input", { bubbles: true }));
      };
      set("name", name);
      const kind = root.querySelector<HTMLInputElement>("#add-kind-custom")!;
      kind.checked = true;
      kind.dispatchEvent(new Event("change", { bubbles: true }));
      set("command", command);
      root.querySelector("form.add-form")!.dispatchEvent(new Event("submit", { bubbles: true, cancelable: true }));
      await flush();
    };
    const names = (f: ReturnType<typeof fakeApi>) => (f.saved().backends ?? []).map((b) => b.name);

    it("a save after Add backend keeps the new backend, even with edits typed before it", async () => {
      const f = fakeApi();
      const { app, root } = await mount(f.api, "settings");
      type(root, "min_orphan_age", "10m"); // unsaved: the page's copy stays as loaded
      app.setTab("backends");
      await addCustom(root, "web", "python3 -m http.server 0");
      expect(names(f)).toEqual(["web"]);
      app.setTab("settings");
      await flush();
      type(root, "grace", "7s");
      submit(root);
      await flush();
      const sent = f.api.SaveSettings.mock.calls[0][0];
      expect(sent).toEqual({ settings: { grace: "7s", min_orphan_age: "10m" }, fields: ["grace", "min_orphan_age"] });
      expect(names(f)).toEqual(["web"]);
      expect(f.saved()).toMatchObject({ grace: "7s", min_orphan_age: "10m" });
    });

    it("a save after Remove does not bring the backend back", async () => {
      const f = fakeApi();
      await f.api.AddBackend({ name: "api", kind: "serve" });
      await f.api.AddBackend({ name: "web", kind: "custom", command: "python3 -m http.server 0" });
      const { app, root } = await mount(f.api, "settings");
      app.setTab("backends");
      await f.api.RemoveBackend("web"); // as the card's Remove does
      app.setTab("settings");
      await flush();
      type(root, "grace", "2s");
      submit(root);
      await flush();
      expect(names(f)).toEqual(["api"]);
      expect(JSON.stringify(f.api.SaveSettings.mock.calls[0][0])).not.toContain("backends");
    });

    it("shows what the Backends page changed when Settings is opened again", async () => {
      const f = fakeApi();
      const { app, root } = await mount(f.api, "settings");
      const command = () => root.querySelector<HTMLInputElement>('[data-field="backend_command"]')!;
      expect(command().readOnly).toBe(false);
      expect(root.querySelector("#set-backend_command-note")).toBeNull();
      app.setTab("backends");
      await addCustom(root, "web", "python3 -m http.server 0");
      app.setTab("settings");
      await flush();
      // Backend command is not used once a list is saved, and says so.
      expect(command().readOnly).toBe(true);
      expect(root.querySelector("#set-backend_command-note")!.textContent).toContain("Not used: your backends are listed on the Backends page");
      // Reset to defaults leaves it, so Save does not send a command Go would refuse.
      type(root, "grace", "9s");
      click(byText(root, "button", "Reset to defaults"));
      submit(root);
      await flush();
      expect(f.api.SaveSettings.mock.calls[0][0].fields).not.toContain("backend_command");
      expect(root.querySelector(".save-result.ok")).not.toBeNull();
    });

    it("says a new backend command waits for a restart, and Try again runs the old one", async () => {
      const f = fakeApi();
      const { root } = await mount(f.api, "settings");
      expect(root.querySelector("#set-backend_command-help")!.textContent).toContain("applies when Hermes Desktop restarts");
      type(root, "backend_command", "hermes serve --port 0");
      submit(root);
      await flush();
      expect(root.querySelector(".save-result.ok")!.textContent).toBe(
        "Saved — restart Hermes Desktop to apply; until then, Start and Try again run the backend's old command",
      );
    });
  });

  it("shows the Go side's validation message next to the form", async () => {
    const f = fakeApi();
    f.api.SaveSettings.mockRejectedValueOnce("ready_regex: needs a capture group");
    const { root } = await mount(f.api, "settings");
    type(root, "health_path", "/healthz");
    submit(root);
    await flush();
    expect(root.querySelector(".save-result.bad")!.textContent).toBe("ready_regex: needs a capture group");
  });

  it("Reset to defaults fills the form with the defaults", async () => {
    const f = fakeApi();
    f.api.GetSettings.mockResolvedValueOnce(
      settingsView({ grace: "9s", start_at_login: true, max_duplicate_children: 3, restart_on_fd_pressure: true, nofile_soft_limit: 0 }),
    );
    const { root } = await mount(f.api, "settings");
    expect(root.querySelectorAll(".chip-accent")).toHaveLength(5);
    click(byText(root, "button", "Reset to defaults"));
    expect(root.querySelector<HTMLInputElement>('[data-field="grace"]')!.value).toBe("5s");
    expect(root.querySelector<HTMLInputElement>('[data-field="start_at_login"]')!.checked).toBe(false);
    expect(root.querySelector<HTMLInputElement>('[data-field="max_duplicate_children"]')!.value).toBe("");
    expect(root.querySelector<HTMLInputElement>('[data-field="restart_on_fd_pressure"]')!.checked).toBe(false);
    expect(root.querySelector<HTMLInputElement>('[data-field="nofile_soft_limit"]')!.value).toBe("4096");
    expect(root.querySelectorAll(".chip-accent")).toHaveLength(0);
    expect(f.api.SaveSettings).not.toHaveBeenCalled();
  });

  it("has a Leak guard section with defaults as placeholders", async () => {
    const f = fakeApi();
    f.api.GetSettings.mockResolvedValueOnce(settingsView({ sample_interval: "", nofile_soft_limit: undefined }));
    const { root } = await mount(f.api, "settings");
    const section = byText(root, ".form-section", "Leak guard")!;
    expect(section.querySelector(".form-section-title")!.textContent).toBe("Leak guard");
    const input = (k: string) => section.querySelector<HTMLInputElement>(`[data-field="${k}"]`)!;
    expect(input("sample_interval").placeholder).toBe("5 s (default)");
    expect(input("sample_interval").value).toBe("");
    expect(input("max_duplicate_children").placeholder).toBe("Off");
    expect(input("nofile_soft_limit").placeholder).toBe("4096");
    expect(input("nofile_soft_limit").value).toBe("");
    expect(input("restart_on_fd_pressure").type).toBe("checkbox");
    expect(input("restart_on_fd_pressure").checked).toBe(false);
    for (const k of ["sample_interval", "max_duplicate_children", "nofile_soft_limit", "restart_on_fd_pressure"]) {
      expect(root.querySelector(`#set-${k}-help`)!.textContent!.length, k).toBeGreaterThan(20);
    }
    expect(root.querySelector<HTMLButtonElement>('[data-action="settings-save"]')!.disabled).toBe(true);
  });

  it("has a Remote hosts section: placeholders say what empty means, errors land on their field", async () => {
    const f = fakeApi();
    f.api.GetSettings.mockResolvedValueOnce(settingsView({ disconnect_grace: "" }));
    f.api.SaveSettings.mockRejectedValueOnce('SSH config file: "/nope" cannot be read');
    const { root } = await mount(f.api, "settings");
    const section = byText(root, ".form-section", "Remote hosts")!;
    const input = (k: string) => section.querySelector<HTMLInputElement>(`[data-field="${k}"]`)!;
    expect(section.querySelector("#set-ssh_config")!.closest(".field")!.querySelector("label")!.textContent).toBe("SSH config file");
    expect(input("ssh_config").placeholder).toBe("ssh's own (~/.ssh/config)");
    expect(input("disconnect_grace").placeholder).toBe("30 s (default)");
    type(root, "disconnect_grace", "1s");
    type(root, "ssh_config", "config");
    submit(root);
    await flush();
    expect(f.api.SaveSettings).not.toHaveBeenCalled();
    expect(root.querySelector("#set-disconnect_grace-err")!.textContent).toBe("Must be at least 3 s");
    expect(root.querySelector("#set-ssh_config-err")!.textContent).toBe("Use a full path like /home/you/.ssh/config");
    type(root, "disconnect_grace", " 2m ");
    type(root, "ssh_config", "/nope");
    submit(root);
    await flush();
    expect(f.api.SaveSettings.mock.calls[0][0]).toEqual({ settings: { ssh_config: "/nope", disconnect_grace: "2m" }, fields: ["ssh_config", "disconnect_grace"] });
    expect(root.querySelector("#set-ssh_config-err")!.textContent).toBe('"/nope" cannot be read');
    expect(root.querySelector('[data-field="ssh_config"]')!.getAttribute("aria-invalid")).toBe("true");
  });

  it("names the remote settings that wait for a restart", async () => {
    const f = fakeApi();
    f.api.GetSettings.mockResolvedValueOnce({ ...settingsView({ disconnect_grace: "10s" }), pending: ["ssh_config", "disconnect_grace"], pending_restarts_backends: true });
    const { root } = await mount(f.api, "settings");
    expect(root.querySelector(".form-actions .pending-note")!.textContent).toBe("Waiting for a restart: SSH config file, Disconnect grace — your backends restart with it.");
  });

  it("saves the leak guard fields as an edit: the fields changed and nothing else", async () => {
    const f = fakeApi();
    const loaded = { ...settingsView().settings, max_duplicate_children: 4, nofile_soft_limit: 8192, from_a_newer_go: [1, 2] };
    f.api.GetSettings.mockResolvedValueOnce({ ...settingsView(), settings: loaded });
    const { root } = await mount(f.api, "settings");
    expect(root.querySelector<HTMLInputElement>('[data-field="nofile_soft_limit"]')!.value).toBe("8192");
    type(root, "sample_interval", " 2s ");
    type(root, "max_duplicate_children", "6");
    type(root, "nofile_soft_limit", "");
    const box = root.querySelector<HTMLInputElement>('[data-field="restart_on_fd_pressure"]')!;
    box.checked = true;
    box.dispatchEvent(new Event("change", { bubbles: true }));
    submit(root);
    await flush();
    expect(f.api.SaveSettings).toHaveBeenCalledTimes(1);
    expect(f.api.SaveSettings.mock.calls[0][0]).toEqual({
      settings: {
        sample_interval: "2s",
        max_duplicate_children: 6,
        restart_on_fd_pressure: true,
        nofile_soft_limit: undefined, // empty: left out, so Go uses the default
      },
      fields: ["sample_interval", "max_duplicate_children", "restart_on_fd_pressure", "nofile_soft_limit"],
    });
    // 0 is sent as 0: the floor is off.
    type(root, "nofile_soft_limit", "0");
    submit(root);
    await flush();
    expect(f.api.SaveSettings.mock.calls[1][0]).toMatchObject({ settings: { nofile_soft_limit: 0 } });
  });

  it("flags leak guard values outside Go's ranges and does not save them", async () => {
    const f = fakeApi();
    const { root } = await mount(f.api, "settings");
    type(root, "sample_interval", "50ms");
    type(root, "max_duplicate_children", "5000");
    type(root, "nofile_soft_limit", "lots");
    submit(root);
    await flush();
    expect(f.api.SaveSettings).not.toHaveBeenCalled();
    const err = (k: string) => root.querySelector(`#set-${k}-err`)?.textContent;
    expect(err("sample_interval")).toBe("Must be at least 100 ms");
    expect(err("max_duplicate_children")).toBe("Must be at most 1,000");
    expect(err("nofile_soft_limit")).toBe("Enter a whole number from 0 to 1,048,576");
    type(root, "max_duplicate_children", "10");
    expect(err("max_duplicate_children")).toBeUndefined();
    expect(root.querySelectorAll(".field.has-error")).toHaveLength(2);
  });

  it("shows the Go side's error for leak guard fields as it does for the rest", async () => {
    const f = fakeApi();
    f.api.SaveSettings.mockRejectedValueOnce("open-file floor: 2000000 is outside 0..1048576");
    const { root } = await mount(f.api, "settings");
    type(root, "nofile_soft_limit", "65536");
    submit(root);
    await flush();
    expect(root.querySelector(".save-result.bad")!.textContent).toBe("open-file floor: 2000000 is outside 0..1048576");
  });

  describe("Updates section", () => {
    const FEED = "https://example.com/hermes-desktop/stable.json";
    const withUpdate = (u: Partial<NonNullable<Status["instance"]["update"]>>) =>
      status([backend()], { instance: { ...status().instance, update: { state: "idle", current: "1.2.3", ...u } } });
    const section = (root: HTMLElement) => byText(root, ".form-section", "Updates")!;
    const check = (root: HTMLElement, field: string) => {
      const box = root.querySelector<HTMLInputElement>(`[data-field="${field}"]`)!;
      box.checked = !box.checked;
      box.dispatchEvent(new Event("change", { bubbles: true }));
    };

    it("has the feed and the automatic switch, empty and off by default", async () => {
      const { root } = await mount(fakeApi().api, "settings");
      const sec = section(root);
      expect(sec.querySelector(".form-section-title")!.textContent).toBe("Updates");
      const feed = sec.querySelector<HTMLInputElement>('[data-field="update_feed"]')!;
      expect(feed.value).toBe("");
      expect(feed.placeholder).toBe("None: updates off");
      expect(root.querySelector("#set-update_feed-help")!.textContent).toContain("there is no default feed yet");
      const auto = sec.querySelector<HTMLInputElement>('[data-field="update_automatically"]')!;
      expect(auto.type).toBe("checkbox");
      expect(auto.checked).toBe(false);
      expect(root.querySelector("#set-update_automatically-help")!.textContent).toContain("Default: off.");
      expect(sec.textContent).toContain("Update automatically when idle");
      expect(sec.querySelector(".field-note")).toBeNull();
    });

    it("shows the saved values", async () => {
      const f = fakeApi();
      f.api.GetSettings.mockResolvedValueOnce(settingsView({ update_feed: FEED, update_automatically: true }));
      const { root } = await mount(f.api, "settings");
      expect(root.querySelector<HTMLInputElement>('[data-field="update_feed"]')!.value).toBe(FEED);
      expect(root.querySelector<HTMLInputElement>('[data-field="update_automatically"]')!.checked).toBe(true);
      expect(section(root).querySelectorAll(".chip-accent")).toHaveLength(2);
    });

    it("does not save a feed Go would refuse, and says why", async () => {
      const f = fakeApi();
      const { root } = await mount(f.api, "settings");
      type(root, "update_feed", "http://updates.example.com/stable.json");
      submit(root);
      await flush();
      expect(f.api.SaveSettings).not.toHaveBeenCalled();
      expect(f.api.FeedURLError).toHaveBeenCalledWith("http://updates.example.com/stable.json");
      expect(root.querySelector("#set-update_feed-err")!.textContent).toBe('"http://updates.example.com/stable.json" must be https (http only on this machine)');
      expect(root.querySelector('[data-field="update_feed"]')!.getAttribute("aria-invalid")).toBe("true");
      type(root, "update_feed", "http://127.0.0.1:8080/stable.json");
      expect(root.querySelector("#set-update_feed-err")).toBeNull();
    });

    it("saves the feed and the switch, which apply at once", async () => {
      const f = fakeApi();
      const { root } = await mount(f.api, "settings");
      type(root, "update_feed", ` ${FEED} `);
      check(root, "update_automatically");
      submit(root);
      await flush();
      expect(f.api.SaveSettings.mock.calls[0][0]).toEqual({ settings: { update_feed: FEED, update_automatically: true }, fields: ["update_feed", "update_automatically"] });
      expect(root.querySelector(".save-result.ok")!.textContent).toBe("Saved and applied");
    });

    it("says when a flag or environment variable wins over the saved values", async () => {
      const f = fakeApi(withUpdate({ feed: "https://flag.example.com/beta.json", feed_from: "--update-feed", automatic: true, automatic_from: "HERMES_DESKTOP_UPDATE_AUTOMATICALLY" }));
      const { root } = await mount(f.api, "settings");
      expect(root.querySelector("#set-update_feed-note")!.textContent).toBe(
        "In use: https://flag.example.com/beta.json, set by --update-feed, which wins over this setting.",
      );
      expect(root.querySelector("#set-update_automatically-note")!.textContent).toBe("On: set by HERMES_DESKTOP_UPDATE_AUTOMATICALLY, which wins over this setting.");
      expect(root.querySelector('[data-field="update_feed"]')!.getAttribute("aria-describedby")).toBe("set-update_feed-help set-update_feed-note");
      type(root, "update_feed", FEED);
      submit(root);
      await flush();
      expect(root.querySelector(".save-result.ok")!.textContent).toBe("Saved — --update-feed still wins over the saved value");
    });

    it("says why updates stay off with a feed set", async () => {
      const f = fakeApi(withUpdate({ state: "off", feed: FEED, reason: "disabled", error: "updates are off: this build has no update key" }));
      f.api.GetSettings.mockResolvedValueOnce(settingsView({ update_feed: FEED }));
      const { root } = await mount(f.api, "settings");
      expect(root.querySelector("#set-update_feed-note")!.textContent).toBe("Updates are off: this build has no update key");
    });

    it("says a feed saved in a build without updates is kept but not used, not applied", async () => {
      const f = fakeApi(withUpdate({ state: "off", reason: "disabled", build_off: true, error: "updates are off: this build of Hermes Desktop does not update itself" }));
      const { root } = await mount(f.api, "settings");
      type(root, "update_feed", FEED);
      submit(root);
      await flush();
      expect(root.querySelector(".save-result.ok")!.textContent).toBe("Saved — updates are off in this build of Hermes Desktop, so the feed is not used");
      // Its help does not say a change applies at once (issue 31, item 11).
      const help = root.querySelector("#set-update_feed-help")?.textContent ?? "";
      expect(help).toContain("does not update itself");
      expect(help).not.toContain("applies at once");
    });

    it("follows the status: the note goes once the flag no longer wins", async () => {
      const f = fakeApi(withUpdate({ feed: "", feed_from: "HERMES_DESKTOP_UPDATE_FEED", state: "off" }));
      const { root } = await mount(f.api, "settings");
      expect(root.querySelector("#set-update_feed-note")!.textContent).toBe(
        "Updates are off: HERMES_DESKTOP_UPDATE_FEED is set empty, which wins over this setting.",
      );
      f.emitStatus(withUpdate({ feed: FEED }));
      await flush();
      expect(root.querySelector("#set-update_feed-note")).toBeNull();
    });
  });

  it("brings the first field with an error into view on a refused save (issue 31, item 7)", async () => {
    const f = fakeApi();
    const { root } = await mount(f.api, "settings");
    type(root, "health_path", "nope");
    type(root, "sample_interval", "soon");
    submit(root);
    await flush();
    expect(root.querySelector(".save-result")!.textContent).toBe("Fix the highlighted fields, then save again.");
    expect(document.activeElement).toBe(root.querySelector("#set-health_path"));
    expect(f.api.SaveSettings).not.toHaveBeenCalled();
  });

  it("offers Retry when settings cannot be loaded", async () => {
    const f = fakeApi();
    f.api.GetSettings.mockRejectedValueOnce("config unreadable");
    const { root } = await mount(f.api, "settings");
    expect(root.textContent).toContain("config unreadable");
    click(byText(root, "button", "Retry"));
    await flush();
    expect(f.api.GetSettings).toHaveBeenCalledTimes(2);
    expect(root.querySelector("form")).not.toBeNull();
  });
});

describe("header", () => {
  it("Quit calls Quit and shows its error inline", async () => {
    const f = fakeApi();
    f.api.Quit.mockRejectedValueOnce("backends did not stop in time");
    const { root } = await mount(f.api);
    click(root.querySelector('[data-action="quit"]'));
    await flush();
    expect(f.api.Quit).toHaveBeenCalledTimes(1);
    expect(root.querySelector(".topbar .inline-error")!.textContent).toBe("Backends did not stop in time");
  });

  it("switches tabs from the sidebar", async () => {
    const { root, app } = await mount(fakeApi().api);
    click(root.querySelector('[data-tab="logs"]'));
    expect(app.state.tab).toBe("logs");
    expect(root.querySelector(".page-title")!.textContent).toBe("Logs");
    expect(root.querySelector('[data-tab="logs"]')!.getAttribute("aria-selected")).toBe("true");
  });
});

describe("restart to apply", () => {
  const updated = () => status([backend()], { instance: { ...status().instance, restart_to_apply: true } });
  const restartBanner = (root: HTMLElement) => root.querySelector('.content > .banner[data-key="apply-installed-update"]');

  it("offers nothing while the running executable is the installed one", async () => {
    const { root } = await mount(fakeApi().api);
    expect(restartBanner(root)).toBeNull();
    expect(root.querySelector('[data-action="apply-installed-update"]')).toBeNull();
  });

  it("shows a banner above every tab once Go says the app was updated", async () => {
    const f = fakeApi();
    const { root, app } = await mount(f.api);
    f.api.Status.mockResolvedValue(updated()); // what the Process tree tab reads again
    f.emitStatus(updated());
    const b = restartBanner(root)!;
    expect(b).not.toBeNull();
    expect(b.getAttribute("role")).toBe("status");
    expect(b.textContent).toContain("Hermes Desktop was updated. Restart to apply — your backends keep running.");
    const btn = b.querySelector<HTMLButtonElement>('button[data-action="apply-installed-update"]')!;
    expect(btn.textContent).toBe("Restart to apply");
    expect(btn.classList.contains("btn-primary")).toBe(true);
    for (const tab of ["tree", "logs", "reap", "settings"] as Tab[]) {
      app.setTab(tab);
      await flush();
      expect(restartBanner(root), tab).not.toBeNull();
    }
  });

  it("says it once: Go's notice of the same update is not shown beside the banner", async () => {
    const goNotice = "Hermes Desktop was updated on disk: restart to apply (your backends keep running)";
    const other = "config.json was invalid and was set aside";
    const f = fakeApi(status([backend()], { instance: { ...status().instance, restart_to_apply: true }, notices: [goNotice, other] }));
    const { root, app } = await mount(f.api);
    const texts = () => Array.from(root.querySelectorAll(".banner")).map((b) => b.textContent ?? "");
    expect(texts().filter((t) => /restart to apply/i.test(t))).toHaveLength(1);
    expect(texts().some((t) => t.includes(other))).toBe(true);
    app.setTab("settings");
    await flush();
    expect(texts().filter((t) => /restart to apply/i.test(t))).toHaveLength(1);
  });

  it("calls ApplyInstalledUpdate once, busy while pending and after it worked", async () => {
    const f = fakeApi(updated());
    const d = deferred<void>();
    f.api.ApplyInstalledUpdate.mockReturnValueOnce(d.promise);
    const { root } = await mount(f.api);
    click(root.querySelector('[data-action="apply-installed-update"]'));
    const btn = root.querySelector<HTMLButtonElement>('[data-action="apply-installed-update"]')!;
    expect(btn.disabled).toBe(true);
    expect(btn.getAttribute("aria-busy")).toBe("true");
    expect(btn.textContent).toBe("Restarting…");
    click(btn);
    expect(f.api.ApplyInstalledUpdate).toHaveBeenCalledTimes(1);
    d.resolve();
    await flush();
    // The window is about to close: nothing to click again.
    expect(root.querySelector<HTMLButtonElement>('[data-action="apply-installed-update"]')!.disabled).toBe(true);
  });

  it("shows a failure inside the banner and lets the user try again", async () => {
    const f = fakeApi(updated());
    f.api.ApplyInstalledUpdate.mockRejectedValueOnce("the new version did not take over within 2m0s");
    const { root } = await mount(f.api);
    click(root.querySelector('[data-action="apply-installed-update"]'));
    await flush();
    expect(restartBanner(root)!.querySelector(".inline-error")!.textContent).toBe("The new version did not take over within 2m0s");
    const btn = root.querySelector<HTMLButtonElement>('[data-action="apply-installed-update"]')!;
    expect(btn.disabled).toBe(false);
    click(btn);
    await flush();
    expect(f.api.ApplyInstalledUpdate).toHaveBeenCalledTimes(2);
    expect(restartBanner(root)!.querySelector(".inline-error")).toBeNull();
  });
});

describe("the status the page was served with (issue 31: state shown as fast as the blank window)", () => {
  it("draws the backends at once, before Status() answers, then takes its answer", async () => {
    const f = fakeApi();
    const answer = deferred<Status>();
    f.api.Status.mockReturnValueOnce(answer.promise);
    const root = document.createElement("div");
    document.body.appendChild(root);
    const app = new App(f.api, root, { now: () => NOW, schedule: (fn) => fn(), timers: false, initialStatus: status([backend({ name: "served" })]) });
    track(app, root);
    const started = app.start();
    expect(root.querySelector('[aria-label="Backend served"], article')?.textContent).toContain("served");
    expect(root.textContent).not.toContain("Connecting");
    answer.resolve(status([backend({ name: "served" }), backend({ name: "added" })]));
    await started;
    await flush();
    expect(root.textContent).toContain("added");
  });
});
