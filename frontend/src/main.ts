import "./style.css";
import { bootData, createWailsApi, hasWails, platformQuoting } from "./api";
import { waitForBindings } from "./boot";
import { setQuoting } from "./format";
import { App } from "./app";
import { tabFromHash } from "./state";
import type { HermesAPI } from "./types";

/** Whether the Wails globals come within ms (npm run dev: are we in a plain browser?). */
async function wailsWithin(ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (!hasWails()) {
    if (Date.now() >= until) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}

/**
 * The engine the page talks to. Only a development build (`npm run dev`)
 * may use the simulated engine of src/mock.ts, in a plain browser: in a
 * build, import.meta.env.DEV is false, so this branch and mock.ts are left
 * out of dist/ (scripts/check-dist.sh checks it), and a page whose bindings
 * are late waits for them (src/boot.ts).
 */
async function engine(root: HTMLElement): Promise<{ api: HermesAPI; preview: boolean }> {
  if (import.meta.env.DEV && !(await wailsWithin(250))) {
    const { createMockApi, scenarioFromLocation } = await import("./mock");
    return { api: createMockApi(scenarioFromLocation(location.search)), preview: true };
  }
  await waitForBindings(root);
  const api = createWailsApi();
  setQuoting(bootData().quoting ?? (await platformQuoting()));
  return { api, preview: false };
}

async function main(): Promise<void> {
  const root = document.getElementById("app");
  if (!root) return;
  // Before anything is laid out: the stylesheet picks the platform's fonts.
  const platform = bootData().platform;
  if (platform) document.documentElement.dataset.platform = platform;
  const { api, preview } = await engine(root);
  const app = new App(api, root, {
    initialTab: tabFromHash(location.hash),
    preview,
    initialStatus: preview ? undefined : (bootData().status ?? undefined),
    onTab: (tab) => history.replaceState(null, "", `#${tab}`),
  });
  window.addEventListener("hashchange", () => app.setTab(tabFromHash(location.hash)));
  await app.start();
}

void main();
