// What the Backends page's buttons do: start, stop, open Hermes, copy
// connection details. The App owns the state and the rendering; it hands
// each of these actions here.

import type { AppState } from "./state";
import type { HermesAPI } from "./types";

/** What the actions need from the App. */
export interface ActionHost {
  readonly state: AppState;
  readonly api: HermesAPI;
  /** Runs fn with a busy key, showing its error inline under errKey. */
  run(busyKey: string, errKey: string, fn: () => Promise<unknown>): Promise<boolean>;
  update(): void;
}

/** The data-action values BackendActions handles. */
const ACTIONS = new Set([
  "restart",
  "start",
  "stop",
  "open-hermes",
  "copy-connection",
]);

export class BackendActions {
  constructor(private readonly host: ActionHost) {}

  /** Runs a clicked action; false when it is not one of these. */
  click(action: string, target: HTMLElement): boolean {
    if (!ACTIONS.has(action)) return false;
    const h = this.host;
    const name = target.dataset.name ?? "";
    switch (action) {
      case "restart":
        void h.run(`restart:${name}`, `backend:${name}`, () => h.api.Restart(name));
        break;
      case "start":
        void h.run(`start:${name}`, `backend:${name}`, () => h.api.StartBackend(name));
        break;
      case "stop":
        void h.run(`stop:${name}`, `backend:${name}`, () => h.api.StopBackend(name));
        break;
      case "open-hermes":
        void h.run(`open-hermes:${name}`, target.dataset.errKey ?? `backend:${name}`, () => h.api.OpenHermes(name));
        break;
      case "copy-connection":
        this.copyConnection(name);
        break;
    }
    return true;
  }

  /** Copies a backend's connection details. The text holds the session
   *  token: it goes from Go to the clipboard and nowhere else (not the
   *  state, not an error, not a log). */
  private copyConnection(name: string): void {
    const h = this.host;
    void h.run(`copy:${name}`, `backend:${name}`, async () => {
      const details = await h.api.ConnectionDetails(name);
      let copied = false;
      try {
        copied = await h.api.ClipboardSetText(details);
      } catch {
        // The runtime's error could echo what it was given: say it in our words.
      }
      if (!copied) throw new Error("The clipboard did not accept the details; nothing was copied.");
      const withToken = details.includes("X-Hermes-Session-Token");
      h.state.notes.set(`backend:${name}`, withToken ? "Copied URL and token" : "Copied connection details");
    });
  }
}
