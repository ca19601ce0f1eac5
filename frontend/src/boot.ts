// The page's wait for the Wails bindings (window.go, window.runtime). Wails
// injects them with scripts that run before ours, so they are normally
// there at once; on a slow or loaded machine they may come late. The real
// app then waits for them and, if they do not come, says so: it never
// falls back to the simulated engine, which only `npm run dev` has
// (src/main.ts).

import { hasWails } from "./api";
import { h } from "./dom";
import { emptyState } from "./ui";

/** How the page waits for the bindings; times in ms. */
export interface BindingWait {
  /** Time between checks while the bindings may still come soon. */
  pollMs: number;
  /** After this long the page shows that it is connecting. */
  connectingAfterMs: number;
  /** After this long the page says the bindings did not come. */
  missingAfterMs: number;
  /** Time between checks once it said so: a late arrival still starts the app. */
  slowPollMs: number;
}

/** The waits of the real app. */
export const BINDING_WAIT: BindingWait = { pollMs: 20, connectingAfterMs: 1000, missingAfterMs: 15000, slowPollMs: 1000 };

/**
 * Resolves once the bindings are there, root empty. Meanwhile root shows
 * first nothing, then that the page is connecting, then that the
 * connection did not come and what to do.
 */
export async function waitForBindings(root: HTMLElement, w: Window = window, wait: BindingWait = BINDING_WAIT): Promise<void> {
  const start = Date.now();
  let shown: "nothing" | "connecting" | "missing" = "nothing";
  while (!hasWails(w)) {
    const waited = Date.now() - start;
    if (waited >= wait.missingAfterMs && shown !== "missing") {
      root.replaceChildren(missingView(Math.round(wait.missingAfterMs / 1000)));
      shown = "missing";
    } else if (waited >= wait.connectingAfterMs && shown === "nothing") {
      root.replaceChildren(connectingView());
      shown = "connecting";
    }
    await new Promise((r) => setTimeout(r, shown === "missing" ? wait.slowPollMs : wait.pollMs));
  }
  if (shown !== "nothing") root.replaceChildren(); // the app renders from scratch
}

function connectingView(): HTMLElement {
  return h(
    "section.page.page-center",
    null,
    h("div.loading", null, h("span.spinner.spinner-lg"), h("div.loading-title", null, "Connecting to Hermes Desktop…"), h("p.muted", null, "The window is waiting for the app behind it.")),
  );
}

function missingView(seconds: number): HTMLElement {
  return h(
    "section.page.page-center",
    { role: "alert" },
    emptyState(
      "warning",
      "This window cannot reach Hermes Desktop",
      `The page loaded, but its connection to the app did not come within ${seconds} seconds. ` +
        "Your backends are not affected. Quit Hermes Desktop from its tray icon or the menu (or run 'hermes-desktop stop') and open it again. " +
        "This window keeps waiting, and continues if the connection arrives.",
    ),
  );
}
