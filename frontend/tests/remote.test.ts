// A backend on another host: its connection, latency and countdown in
// words, and its card.
import { describe, expect, it } from "vitest";
import { countdown, syncClocks } from "../src/clock";
import { accessWords, connectionWords, countdownChangesIn, countdownText, formatLatency, hostLabel } from "../src/remote";
import { backend, fakeApi, mounter, NOW, status } from "./fixtures";

const { mount } = mounter();
const at = (ms: number) => new Date(ms).toISOString();

describe("connectionWords", () => {
  it("says each state in words", () => {
    expect(connectionWords({ connection: "connected", latency_ms: 12 }, NOW)).toMatchObject({ text: "Connected", tone: "ok" });
    expect(connectionWords({ connection: "connecting" }, NOW)).toMatchObject({ text: "Connecting…", tone: "busy" });
    expect(connectionWords(undefined, NOW)).toMatchObject({ text: "Not connected", tone: "idle" });
    expect(connectionWords({ connection: "failed", error: "Host key verification failed." }, NOW)).toEqual({
      text: "Failed: Host key verification failed.",
      tone: "bad",
      title: "Failed: Host key verification failed.",
    });
    expect(connectionWords({ connection: "failed" }, NOW).text).toBe("Failed");
    expect(connectionWords({ connection: "suspended" }, NOW).text).toBe("Suspended");
  });

  it("counts the next reconnect attempt down from next_attempt against now", () => {
    const w = connectionWords({ connection: "reconnecting", attempt: 3, next_attempt: at(NOW + 7_200) }, NOW);
    expect(w.text).toBe("Reconnecting (attempt 3, next in 8 s)");
    expect(w.tone).toBe("busy");
    expect(w.countdown).toEqual({ until: NOW + 7_200, prefix: "Reconnecting (attempt 3, next in ", suffix: ")", done: "Reconnecting (attempt 3)" });
    expect(connectionWords({ connection: "reconnecting", attempt: 1, next_attempt: at(NOW + 75_000) }, NOW).text).toBe("Reconnecting (attempt 1, next in 1 min 15 s)");
    // Due or passed: the attempt is under way, no countdown.
    const due = connectionWords({ connection: "reconnecting", attempt: 4, next_attempt: at(NOW - 10) }, NOW);
    expect([due.text, due.countdown]).toEqual(["Reconnecting (attempt 4)", undefined]);
    expect(connectionWords({ connection: "reconnecting" }, NOW).text).toBe("Reconnecting");
    // The reason the connection dropped follows.
    expect(connectionWords({ connection: "reconnecting", attempt: 2, next_attempt: at(NOW + 2_000), error: "Connection refused" }, NOW).text).toBe(
      "Reconnecting (attempt 2, next in 2 s) — Connection refused",
    );
  });
});

describe("countdowns", () => {
  it("round up to whole seconds and change at each", () => {
    expect([countdownText(8_000), countdownText(7_001), countdownText(7_000), countdownText(1), countdownText(0)]).toEqual(["8 s", "8 s", "7 s", "1 s", "1 s"]);
    expect([countdownChangesIn(7_200), countdownChangesIn(7_000), countdownChangesIn(0), countdownChangesIn(-5)]).toEqual([200, 1000, NaN, NaN]);
  });

  it("tick in place under syncClocks, then stop waking the page", () => {
    const root = document.createElement("div");
    const c = { until: NOW + 2_500, prefix: "next in ", suffix: ")", done: "due" };
    const el = countdown("span", c, NOW);
    root.append(el);
    const node = el.firstChild;
    expect(el.textContent).toBe("next in 3 s)");
    expect(syncClocks(root, NOW)).toBe(500);
    expect(syncClocks(root, NOW + 500)).toBe(1000);
    expect(el.textContent).toBe("next in 2 s)");
    expect(el.firstChild).toBe(node); // the text node rewritten, nothing else
    expect(Number.isNaN(syncClocks(root, NOW + 2_500))).toBe(true);
    expect(el.textContent).toBe("due");
  });
});

describe("formatLatency", () => {
  it.each([
    [12.4, "12 ms"],
    [2.46, "2.5 ms"],
    [0.4, "0.4 ms"],
    [999.4, "999 ms"],
    [1234, "1.2 s"],
    [0, "—"],
    [undefined, "—"],
  ])("%s -> %s", (ms, want) => expect(formatLatency(ms)).toBe(want));
});

describe("accessWords", () => {
  it("says only this user reaches an isolated backend", () => {
    const a = accessWords("me@box", { connection: "connected", port: 8642, isolation: "netns" });
    expect(a).toMatchObject({ text: "Only you (isolated)", tone: "ok" });
    expect(a.title).toContain("other accounts there cannot reach");
  });

  it("names the port every account on the host can reach, and why", () => {
    const a = accessWords("me@box", { connection: "connected", port: 8642, isolation: "none", isolation_reason: "turned off (--netns=off)" });
    expect(a).toMatchObject({ text: "Other accounts on me@box can reach port 8642", tone: "bad" });
    expect(a.title).toContain("token");
    expect(a.title).toContain("turned off (--netns=off)");
    expect(accessWords("me@box", { connection: "connected", isolation: "none" }).text).toBe("Other accounts on me@box can reach its port");
  });

  it("says nothing before the backend started", () => {
    expect(accessWords("me@box", undefined).text).toBe("—");
    expect(accessWords("me@box", { connection: "connecting" }).tone).toBe("idle");
  });
});

describe("a remote backend's card", () => {
  const remote = (over = {}) =>
    backend({
      name: "far",
      kind: "serve",
      host: "me@build-box",
      pid: 1234,
      port: 43901,
      url: "http://127.0.0.1:43901/",
      remote: { connection: "connected", platform: "linux/arm64", port: 8642, latency_ms: 12.3, lock_dir: "/home/me/.hermes/desktop-ssh/abc" },
      ...over,
    });
  const facts = (c: Element) => Object.fromEntries(Array.from(c.querySelectorAll(".fact")).map((f) => [f.querySelector("dt")!.textContent, f.querySelector("dd")!.textContent]));

  it("says where it runs, its remote PID and port, the connection and latency", async () => {
    const { root } = await mount(fakeApi(status([remote(), backend()])).api);
    const c = root.querySelector('[data-key="backend:far"]')!;
    expect(c.querySelector(".host-chip")!.textContent).toBe(hostLabel("me@build-box"));
    expect(c.querySelector(".host-chip")!.textContent).toBe("on me@build-box");
    expect(facts(c)).toMatchObject({ "Remote PID": "1234", "Local port": "43901", Connection: "Connected", Host: "me@build-box", "Remote port": "8642", Latency: "12 ms", Platform: "linux/arm64" });
    expect(facts(c).Access).toBe("—"); // not said yet
    expect(facts(c)).not.toHaveProperty("PID");
    // A local card keeps its PID and shows no remote row.
    const local = root.querySelector('[data-key="backend:hermes"]')!;
    expect(facts(local)).toMatchObject({ PID: "4100" });
    expect(local.querySelector(".host-chip, .fact-connection")).toBeNull();
  });

  it("keeps the same facts whatever the connection says, so nothing moves", async () => {
    const shapes: string[][] = [];
    for (const r of [
      { connection: "connecting" },
      { connection: "reconnecting", attempt: 3, next_attempt: at(NOW + 8_000), error: "Connection reset" },
      { connection: "failed", error: "ssh: connect to host build-box port 22: Connection refused" },
    ]) {
      const { root } = await mount(fakeApi(status([remote({ remote: r, state: r.connection === "failed" ? "failed" : "restarting" })])).api);
      const c = root.querySelector('[data-key="backend:far"]')!;
      shapes.push(Array.from(c.querySelectorAll(".fact dt")).map((d) => d.textContent!));
      const conn = c.querySelector(".fact-connection dd")!;
      if (r.connection === "reconnecting") {
        expect(conn.textContent).toBe("Reconnecting (attempt 3, next in 8 s) — Connection reset");
        expect(conn.querySelector("[data-until]")).not.toBeNull(); // counted down by the page's clock
        expect(facts(c).Latency).toBe("—");
      }
      if (r.connection === "failed") {
        expect(conn.textContent).toBe("Failed: ssh: connect to host build-box port 22: Connection refused");
        expect(conn.getAttribute("title")).toBe(conn.textContent);
        expect(conn.className).toContain("conn-bad");
      }
    }
    expect(shapes[1]).toEqual(shapes[0]);
    expect(shapes[2]).toEqual(shapes[0]);
  });

  it("says who on the host can reach it", async () => {
    for (const [r, want, cls] of [
      [{ connection: "connected", port: 8642, isolation: "netns" }, "Only you (isolated)", "access-ok"],
      [{ connection: "connected", port: 8642, isolation: "none", isolation_reason: "the host refuses an unprivileged user and network namespace" }, "Other accounts on me@build-box can reach port 8642", "access-bad"],
    ] as const) {
      const { root } = await mount(fakeApi(status([remote({ remote: r })])).api);
      const dd = root.querySelector('[data-key="backend:far"] .fact-access dd')!;
      expect(dd.textContent).toBe(want);
      expect(dd.className).toContain(cls);
      expect(dd.getAttribute("title")).toBeTruthy();
    }
  });
});
