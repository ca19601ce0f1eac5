// The Backends page by kind (dashboard, API server, attached), Open Hermes
// and connection details.
import { afterEach, describe, expect, it } from "vitest";
import { App } from "../src/app";
import type { Tab } from "../src/state";
import type { HermesAPI } from "../src/types";
import { backend, CONNECTION_DETAILS, fakeApi, flush, status, TOKEN } from "./fixtures";

const NOW = Date.parse("2024-05-01T10:03:14Z");
let mounted: { app: App; root: HTMLElement }[] = [];

async function mount(api: HermesAPI, tab: Tab = "backends") {
  const root = document.createElement("div");
  document.body.appendChild(root);
  const app = new App(api, root, { now: () => NOW, schedule: (fn) => fn(), timers: false, initialTab: tab });
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

const click = (el: Element | null) => {
  if (!el) throw new Error("element not found");
  (el as HTMLElement).click();
};
const byText = (root: ParentNode, sel: string, text: string) =>
  Array.from(root.querySelectorAll(sel)).find((e) => e.textContent?.includes(text)) ?? null;
const card = (root: HTMLElement, name: string) => {
  const c = root.querySelector<HTMLElement>(`[data-key="backend:${name}"]`);
  if (!c) throw new Error(`no card for ${name}`);
  return c;
};
const actionLabels = (c: HTMLElement) => Array.from(c.querySelectorAll(".card-actions button")).map((b) => b.textContent);

const dashboard = (over = {}) =>
  backend({
    name: "hermes",
    kind: "dashboard",
    page_url: "http://127.0.0.1:43817/",
    command: ["hermes", "dashboard", "--no-open", "--host", "127.0.0.1", "--port", "0"],
    ...over,
  });
const serve = (over = {}) => backend({ name: "api", kind: "serve", port: 43901, url: "http://127.0.0.1:43901/", ...over });
const attached = (over = {}) =>
  backend({ name: "hermes", kind: "dashboard", state: "external", pid: 0, port: 9119, url: "http://127.0.0.1:9119/", page_url: "http://127.0.0.1:9119/", ready_at: undefined, ...over });

describe("a dashboard card", () => {
  it("says what it is, shows its page as text and opens it with Open Hermes", async () => {
    const f = fakeApi(status([dashboard(), serve()]));
    const { root } = await mount(f.api);
    const c = card(root, "hermes");
    expect(c.querySelector(".kind-chip")!.textContent).toBe("Dashboard");
    expect(c.querySelector(".kind-chip")!.getAttribute("title")).toBe("Hermes' web UI with chat");
    const page = byText(c, ".fact", "Page")!;
    expect(page.querySelector("dd")!.textContent).toBe("http://127.0.0.1:43817/");
    expect(page.querySelector("a, button")).toBeNull();
    expect(c.textContent).not.toContain("API only");
    expect(actionLabels(c)).toEqual(["Open Hermes", "Restart", "Stop"]);
    const open = c.querySelector<HTMLButtonElement>('[data-action="open-hermes"]')!;
    expect(open.classList.contains("btn-primary")).toBe(true);
    expect(open.getAttribute("aria-label")).toBe("Open Hermes: hermes, in your browser");
    click(open);
    await flush();
    expect(f.api.OpenHermes).toHaveBeenCalledWith("hermes");
  });

  it("has no Open Hermes until its page is known", async () => {
    const f = fakeApi(status([dashboard({ state: "starting", page_url: undefined, url: undefined, port: 0 })]));
    const { root } = await mount(f.api);
    expect(root.querySelector('[data-action="open-hermes"]')).toBeNull();
    expect(byText(card(root, "hermes"), ".fact", "Address")!.textContent).toContain("—");
  });

  it("shows Open Hermes' error on its card", async () => {
    const f = fakeApi(status([dashboard()]));
    f.api.OpenHermes.mockRejectedValueOnce("no browser could be started");
    const { root } = await mount(f.api);
    click(card(root, "hermes").querySelector('[data-action="open-hermes"]'));
    await flush();
    expect(card(root, "hermes").querySelector(".inline-error")!.textContent).toBe("no browser could be started");
  });
});

describe("an API server card", () => {
  it("says API only and offers its connection details instead of a page", async () => {
    const f = fakeApi(status([dashboard(), serve()]));
    const { root } = await mount(f.api);
    const c = card(root, "api");
    expect(c.querySelector(".kind-chip")!.textContent).toBe("API server");
    expect(byText(c, ".fact", "Address")!.textContent).toBe("AddressAPI onlyhttp://127.0.0.1:43901/");
    expect(c.querySelector('[data-action="open-hermes"]')).toBeNull();
    expect(actionLabels(c)).toEqual(["Copy connection details", "Restart", "Stop"]);
  });

  it("copies the details to the clipboard and confirms without ever showing the token", async () => {
    const f = fakeApi(status([dashboard(), serve()]));
    const { root, app } = await mount(f.api);
    click(card(root, "api").querySelector('[data-action="copy-connection"]'));
    await flush();
    expect(f.api.ConnectionDetails).toHaveBeenCalledWith("api");
    expect(f.api.ClipboardSetText).toHaveBeenCalledWith(CONNECTION_DETAILS);
    const note = card(root, "api").querySelector(".card-note")!;
    expect(note.textContent).toBe("Copied URL and token");
    expect(note.closest('[role="status"]')).not.toBeNull();
    expect(root.innerHTML).not.toContain(TOKEN);
    expect(JSON.stringify([...app.state.notes, ...app.state.errors, ...app.state.busy])).not.toContain(TOKEN);
    // The confirmation lasts until the next action.
    click(root.querySelector('[data-tab="logs"]'));
    click(root.querySelector('[data-tab="backends"]'));
    expect(root.querySelector(".card-note")).toBeNull();
  });

  it("says so when the clipboard refuses, still without the token", async () => {
    const f = fakeApi(status([serve()]));
    f.api.ClipboardSetText.mockResolvedValueOnce(false);
    const { root } = await mount(f.api);
    click(root.querySelector('[data-action="copy-connection"]'));
    await flush();
    expect(root.querySelector(".card-note")).toBeNull();
    expect(root.querySelector(".backend .inline-error")!.textContent).toBe("The clipboard did not accept the details; nothing was copied.");
    f.api.ClipboardSetText.mockRejectedValueOnce(new Error(`cannot set ${CONNECTION_DETAILS}`));
    click(root.querySelector('[data-action="copy-connection"]'));
    await flush();
    expect(root.querySelector(".backend .inline-error")!.textContent).toBe("The clipboard did not accept the details; nothing was copied.");
    expect(root.innerHTML).not.toContain(TOKEN);
  });

  it("shows ConnectionDetails' error and copies nothing", async () => {
    const f = fakeApi(status([serve()]));
    f.api.ConnectionDetails.mockRejectedValueOnce("not ready: backend api is starting");
    const { root } = await mount(f.api);
    click(root.querySelector('[data-action="copy-connection"]'));
    await flush();
    expect(f.api.ClipboardSetText).not.toHaveBeenCalled();
    expect(root.querySelector(".backend .inline-error")!.textContent).toBe("not ready: backend api is starting");
  });

  it("offers no copy before it has an address", async () => {
    const f = fakeApi(status([serve({ state: "starting", url: undefined, port: 0 })]));
    const { root } = await mount(f.api);
    expect(root.querySelector('[data-action="copy-connection"]')).toBeNull();
    expect(root.querySelector(".backend .api-only")!.textContent).toBe("API only");
  });
});

describe("an attached backend", () => {
  it("is marked Attached, explains itself, opens Hermes and is never stopped", async () => {
    const f = fakeApi(status([attached()]));
    const { root } = await mount(f.api);
    const c = card(root, "hermes");
    const badge = c.querySelector(".badge")!;
    expect(badge.textContent).toBe("Attached");
    expect(badge.classList.contains("tone-info")).toBe(true);
    expect(c.querySelector(".attached-note")!.textContent).toBe("Hermes was already running; this app uses it and never stops it.");
    expect(actionLabels(c)).toEqual(["Open Hermes", "Check again", "Detach"]);
    expect(byText(c, "button", "Stop")).toBeNull();
    expect(byText(c, "button", "Restart")).toBeNull();
    expect(byText(c, ".fact", "Page")!.textContent).toContain("http://127.0.0.1:9119/");
    expect(c.querySelector(".uptime")).toBeNull();
    expect(root.querySelector(".glance")!.textContent).toContain("1 backend ready");
    click(byText(c, "button", "Detach"));
    await flush();
    expect(f.api.StopBackend).toHaveBeenCalledWith("hermes");
    click(byText(c, "button", "Check again"));
    await flush();
    expect(f.api.Restart).toHaveBeenCalledWith("hermes");
  });
});

describe("Open Hermes in the page header and the top bar", () => {
  it("the header's opens the first page, in the top bar only off the Backends page", async () => {
    const f = fakeApi(status([serve(), dashboard()]));
    const { root, app } = await mount(f.api);
    const head = root.querySelector(".page-head")!;
    const open = head.querySelector<HTMLButtonElement>('[data-action="open-hermes"]')!;
    expect(open.textContent).toBe("Open Hermes");
    expect(open.classList.contains("btn-primary")).toBe(true);
    expect(root.querySelector('.topbar [data-action="open-hermes"]')).toBeNull();
    click(open);
    await flush();
    expect(f.api.OpenHermes).toHaveBeenCalledWith("");
    app.setTab("logs");
    const top = root.querySelector<HTMLButtonElement>('.topbar [data-action="open-hermes"]')!;
    expect(top.getAttribute("aria-label")).toBe("Open Hermes in your browser");
    f.api.OpenHermes.mockRejectedValueOnce("no backend with a page is ready");
    click(top);
    await flush();
    expect(f.api.OpenHermes).toHaveBeenLastCalledWith("");
    expect(root.querySelector(".topbar .inline-error")!.textContent).toBe("no backend with a page is ready");
  });

  it("is not offered when no backend has a page", async () => {
    const { root, app } = await mount(fakeApi(status([serve()])).api);
    expect(root.querySelector('[data-action="open-hermes"]')).toBeNull();
    app.setTab("logs");
    expect(root.querySelector('[data-action="open-hermes"]')).toBeNull();
  });
});
