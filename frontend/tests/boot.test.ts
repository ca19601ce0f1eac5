import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { waitForBindings, type BindingWait } from "../src/boot";

const wait: BindingWait = { pollMs: 20, connectingAfterMs: 1000, missingAfterMs: 15000, slowPollMs: 1000 };

/** A window whose Wails globals come when arrive() is called, or never. */
function lateWindow() {
  const w = {} as Window;
  return { w, arrive: () => Object.assign(w, { go: { main: { App: {} } }, runtime: {} }) };
}

describe("waitForBindings", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("resolves at once when the bindings are there, showing nothing", async () => {
    const root = document.createElement("div");
    const { w, arrive } = lateWindow();
    arrive();
    await waitForBindings(root, w, wait);
    expect(root.childElementCount).toBe(0);
  });

  it("waits for late bindings, says it is connecting, and never shows a simulated engine", async () => {
    const root = document.createElement("div");
    const { w, arrive } = lateWindow();
    let done = false;
    void waitForBindings(root, w, wait).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(300); // the old page gave up here and showed the mock
    expect(done).toBe(false);
    expect(root.textContent).toBe("");
    await vi.advanceTimersByTimeAsync(1000);
    expect(root.textContent).toContain("Connecting to Hermes Desktop");
    arrive();
    await vi.advanceTimersByTimeAsync(wait.pollMs);
    expect(done).toBe(true);
    expect(root.childElementCount).toBe(0);
  });

  it("says so when the bindings do not come, and still starts if they arrive later", async () => {
    const root = document.createElement("div");
    const { w, arrive } = lateWindow();
    let done = false;
    void waitForBindings(root, w, wait).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(wait.missingAfterMs + wait.pollMs);
    expect(done).toBe(false);
    expect(root.querySelector("[role=alert]")?.textContent).toContain("This window cannot reach Hermes Desktop");
    expect(root.textContent).toContain("within 15 seconds");
    expect(root.textContent).not.toMatch(/simulated|Preview/);
    // At rest it checks once a second, not every 20 ms.
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(done).toBe(false);
    arrive();
    await vi.advanceTimersByTimeAsync(wait.slowPollMs);
    expect(done).toBe(true);
  });
});
