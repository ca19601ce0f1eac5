import "./style.css";
import { createWailsApi, hasWails, platformQuoting } from "./api";
import { setQuoting } from "./format";
import { App } from "./app";
import { tabFromHash } from "./state";
import type { HermesAPI } from "./types";

/** Wails injects its globals before the page's scripts; give it a moment anyway. */
async function waitForWails(ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (!hasWails()) {
    if (Date.now() >= until) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}

async function main(): Promise<void> {
  const root = document.getElementById("app");
  if (!root) return;
  let api: HermesAPI;
  let preview = false;
  if (await waitForWails(250)) {
    api = createWailsApi();
    setQuoting(await platformQuoting());
  } else {
    // Plain browser (npm run dev / preview): simulated engine, clearly marked.
    const { createMockApi, scenarioFromLocation } = await import("./mock");
    api = createMockApi(scenarioFromLocation(location.search));
    preview = true;
  }
  const app = new App(api, root, {
    initialTab: tabFromHash(location.hash),
    preview,
    onTab: (tab) => history.replaceState(null, "", `#${tab}`),
  });
  window.addEventListener("hashchange", () => app.setTab(tabFromHash(location.hash)));
  await app.start();
}

void main();
