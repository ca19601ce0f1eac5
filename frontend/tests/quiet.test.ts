// Quiet at rest (STYLE.md rule 17): nothing animates forever, no timer
// re-renders the page, and a hidden window runs nothing.
import { afterEach, describe, expect, it } from "vitest";
import css from "../src/style.css?raw";
import { App } from "../src/app";
import type { HermesAPI } from "../src/types";
import { backend, fakeApi, flush, status } from "./fixtures";

const NOW = Date.parse("2024-05-01T10:03:14Z");
let mounted: { app: App; root: HTMLElement }[] = [];

async function mount(api: HermesAPI) {
  const root = document.createElement("div");
  document.body.appendChild(root);
  const app = new App(api, root, { now: () => NOW, schedule: (fn) => fn(), timers: false });
  mounted.push({ app, root });
  await app.start();
  await flush();
  return { app, root };
}

afterEach(() => {
  for (const m of mounted) {
    m.app.destroy();
    m.root.remove();
  }
  mounted = [];
});

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
