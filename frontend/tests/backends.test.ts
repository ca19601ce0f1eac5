// The Backends page by kind (dashboard, API server, attached), Open Hermes,
// connection details, adding and removing backends.
import { describe, expect, it } from "vitest";
import { backend, CONNECTION_DETAILS, deferred, fakeApi, flush, mounter, status, TOKEN } from "./fixtures";

const { mount } = mounter();


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
    expect(actionLabels(c)).toEqual(["Open Hermes", "Restart", "Stop", "Remove"]);
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
    expect(card(root, "hermes").querySelector(".inline-error")!.textContent).toBe("No browser could be started");
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
    expect(actionLabels(c)).toEqual(["Copy connection details", "Restart", "Stop", "Remove"]);
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
    expect(root.querySelector(".backend .inline-error")!.textContent).toBe("Not ready: backend api is starting");
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
    expect(actionLabels(c)).toEqual(["Open Hermes", "Check again", "Detach", "Remove"]);
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
    expect(root.querySelector(".topbar .action-error")!.textContent).toBe("No backend with a page is ready");
  });

  it("clears the header's failed open once a card's open worked (issue 31, item 10)", async () => {
    const f = fakeApi(status([dashboard()]));
    const { root } = await mount(f.api);
    f.api.OpenHermes.mockRejectedValueOnce("could not open it: xdg-open, which opens files and links, is not installed");
    click(root.querySelector('.page-head [data-action="open-hermes"]'));
    await flush();
    expect(root.querySelector(".page-head .action-error")!.textContent).toContain("xdg-open");
    click(card(root, "hermes").querySelector('[data-action="open-hermes"]'));
    await flush();
    expect(root.textContent).toContain("Opened in your browser");
    expect(root.querySelector(".page-head .action-error")).toBeNull();
  });

  it("is not offered when no backend has a page", async () => {
    const { root, app } = await mount(fakeApi(status([serve()])).api);
    expect(root.querySelector('[data-action="open-hermes"]')).toBeNull();
    app.setTab("logs");
    expect(root.querySelector('[data-action="open-hermes"]')).toBeNull();
  });
});

describe("Add backend", () => {
  const type = (root: HTMLElement, field: string, value: string) => {
    const el = root.querySelector<HTMLInputElement>(`[data-input="add"][data-field="${field}"]`);
    if (!el) throw new Error(`no field ${field}`);
    el.value = value;
    el.dispatchEvent(new Event("input", { bubbles: true }));
  };
  const pickKind = (root: HTMLElement, kind: string) => {
    const el = root.querySelector<HTMLInputElement>(`#add-kind-${kind}`)!;
    el.checked = true;
    el.dispatchEvent(new Event("change", { bubbles: true }));
  };
  const submit = (root: HTMLElement) => root.querySelector("form.add-form")!.dispatchEvent(new Event("submit", { bubbles: true, cancelable: true }));
  const fieldError = (root: HTMLElement, field: string) => root.querySelector(`#add-${field}-err`)?.textContent;
  const openForm = async (st = status([dashboard(), serve()])) => {
    const f = fakeApi(st);
    const m = await mount(f.api);
    const add = byText(m.root, ".page-head button", "Add backend")!;
    expect(add.getAttribute("aria-expanded")).toBe("false");
    expect(m.root.querySelector("form.add-form")).toBeNull();
    click(add);
    return { f, ...m };
  };

  it("says what runs on the host for the kind chosen (issue 31, item 11)", async () => {
    const { root } = await openForm();
    const help = () => root.querySelector("#add-host-help")?.textContent ?? "";
    expect(help()).toContain("It runs Hermes there if it is installed, else the built-in backend.");
    pickKind(root, "custom");
    expect(help()).toContain("It runs your command there.");
    expect(help()).not.toContain("built-in backend");
  });

  it("opens an inline form with the name focused and the three kinds explained", async () => {
    const { root } = await openForm();
    const form = root.querySelector("form.add-form")!;
    expect(byText(root, ".page-head button", "Add backend")!.getAttribute("aria-expanded")).toBe("true");
    expect(document.activeElement).toBe(root.querySelector("#add-name"));
    const kinds = Array.from(form.querySelectorAll(".kind-option")).map((k) => [k.querySelector(".kind-title")!.textContent, k.querySelector(".kind-help")!.textContent]);
    expect(kinds).toEqual([
      ["Dashboard", "Hermes' web UI with chat"],
      ["API server", "hermes serve, for Hermes clients"],
      ["Custom", "any command serving HTTP on 127.0.0.1"],
    ]);
    expect(root.querySelector<HTMLInputElement>("#add-kind-dashboard")!.checked).toBe(true);
    expect(form.querySelector("#add-profile")).not.toBeNull();
    expect(form.querySelector("#add-command")).toBeNull();
  });

  it("validates the name as Go does and saves nothing until it is right", async () => {
    const { root, f } = await openForm();
    submit(root);
    await flush();
    expect(fieldError(root, "name")).toBe("Enter a name");
    expect(document.activeElement).toBe(root.querySelector("#add-name"));
    for (const [bad, msg] of [
      ["-lead", "Use letters, digits, '.', '_' or '-', starting with a letter or digit"],
      ["has space", "Use letters, digits, '.', '_' or '-', starting with a letter or digit"],
      ["a".repeat(65), "At most 64 characters"],
      ["api", "A backend is already named api"],
    ]) {
      type(root, "name", bad);
      submit(root);
      await flush();
      expect(fieldError(root, "name"), bad).toBe(msg);
    }
    expect(root.querySelector("#add-name")!.getAttribute("aria-invalid")).toBe("true");
    // Fixed as typed.
    type(root, "name", "a".repeat(64));
    expect(fieldError(root, "name")).toBeUndefined();
    type(root, "profile", "--evil");
    submit(root);
    await flush();
    expect(fieldError(root, "profile")).toBe("A profile name does not start with '-'");
    expect(f.api.AddBackend).not.toHaveBeenCalled();
  });

  it("switches fields with the kind: a command for Custom, a profile otherwise", async () => {
    const { root, f } = await openForm();
    type(root, "name", "tools");
    type(root, "profile", "work");
    pickKind(root, "custom");
    expect(root.querySelector("#add-profile")).toBeNull();
    expect(root.querySelector("#add-command")).not.toBeNull();
    expect(root.querySelector(".kind-option.is-selected")!.textContent).toContain("Custom");
    submit(root);
    await flush();
    expect(fieldError(root, "command")).toBe("Enter the command that starts the server");
    expect(f.api.AddBackend).not.toHaveBeenCalled();
    type(root, "command", "  python3 -m myserver --port 0 ");
    expect(fieldError(root, "command")).toBeUndefined();
    submit(root);
    await flush();
    // The profile typed before the switch is not sent with a custom command.
    expect(f.api.AddBackend).toHaveBeenCalledWith({ name: "tools", kind: "custom", command: "python3 -m myserver --port 0" });
  });

  it("sends a profile as --profile and closes on success", async () => {
    const { root, f } = await openForm();
    type(root, "name", " research ");
    pickKind(root, "serve");
    expect(root.querySelector<HTMLInputElement>("#add-profile")).not.toBeNull();
    type(root, "profile", "research");
    const d = deferred<void>();
    f.api.AddBackend.mockReturnValueOnce(d.promise);
    submit(root);
    const save = root.querySelector<HTMLButtonElement>('.add-form button[type="submit"]')!;
    expect(save.disabled).toBe(true);
    expect(save.getAttribute("aria-busy")).toBe("true");
    expect(save.textContent).toBe("Adding…");
    submit(root); // a second submit while pending does nothing
    expect(f.api.AddBackend).toHaveBeenCalledTimes(1);
    expect(f.api.AddBackend).toHaveBeenCalledWith({ name: "research", kind: "serve", args: ["--profile", "research"] });
    d.resolve();
    await flush();
    expect(root.querySelector("form.add-form")).toBeNull();
    expect(f.api.Status).toHaveBeenCalledTimes(2); // the new card without waiting for an event
    expect(document.activeElement).toBe(byText(root, ".page-head button", "Add backend"));
    // Opened again, the form is empty.
    click(byText(root, ".page-head button", "Add backend"));
    expect(root.querySelector<HTMLInputElement>("#add-name")!.value).toBe("");
  });

  it("sends a dashboard without a profile as just its name and kind", async () => {
    const { root, f } = await openForm(status([]));
    expect(root.textContent).not.toContain("No backend running"); // the form replaces the empty state
    type(root, "name", "hermes");
    submit(root);
    await flush();
    expect(f.api.AddBackend).toHaveBeenCalledWith({ name: "hermes", kind: "dashboard" });
  });

  it("shows Go's refusal on the field it names and keeps what was typed", async () => {
    const { root, f } = await openForm();
    f.api.AddBackend.mockRejectedValueOnce("backend x: command: something Go alone knows");
    pickKind(root, "custom");
    type(root, "name", "x");
    type(root, "command", "serve oops");
    submit(root);
    await flush();
    expect(fieldError(root, "command")).toBe("Something Go alone knows");
    expect(root.querySelector(".add-form .inline-error")).toBeNull(); // not in a footer
    expect(document.activeElement).toBe(root.querySelector("#add-command"));
    expect(root.querySelector<HTMLInputElement>("#add-command")!.value).toBe("serve oops");
    expect(root.querySelector<HTMLButtonElement>('.add-form button[type="submit"]')!.disabled).toBe(false);
    // It stays while another field changes, and clears once its own does.
    type(root, "name", "xy");
    expect(fieldError(root, "command")).toBe("Something Go alone knows");
    type(root, "command", "serve ok");
    expect(fieldError(root, "command")).toBeUndefined();
  });

  it("shows a refusal that names no field under the form", async () => {
    const { root, f } = await openForm();
    f.api.AddBackend.mockRejectedValueOnce("refused: the launcher is not running yet");
    type(root, "name", "x");
    submit(root);
    await flush();
    const err = root.querySelector(".add-form .inline-error")!;
    expect(err.textContent).toBe("Refused: the launcher is not running yet");
    expect(err.getAttribute("role")).toBe("alert");
  });

  it("gives a custom backend its own ready pattern, health path and grace, placeholders saying what empty means", async () => {
    const { root, f } = await openForm();
    pickKind(root, "custom");
    await flush(); // the shared settings, read when the form opened
    const placeholder = (field: string) => root.querySelector<HTMLInputElement>(`#add-${field}`)!.placeholder;
    expect([placeholder("ready_regex"), placeholder("health_path"), placeholder("grace")]).toEqual([
      "Settings: READY port=(\\d+)",
      "Settings: /api/health",
      "Settings: 5s",
    ]);
    expect(root.querySelector("#add-ready_regex-help")!.textContent).toContain("first group ( ) is the port");
    type(root, "name", "web");
    type(root, "command", "python3 -m http.server 0 --bind 127.0.0.1");
    type(root, "ready_regex", "port \\d+");
    type(root, "health_path", "api");
    type(root, "grace", "soon");
    submit(root);
    await flush();
    expect(fieldError(root, "ready_regex")).toBe("The pattern needs a capture group for the port, like port=(\\d+)");
    expect(fieldError(root, "health_path")).toBe("Must start with /");
    expect(fieldError(root, "grace")).toBe("Use a duration like 5s, 1m or 1m30s");
    expect(document.activeElement).toBe(root.querySelector("#add-ready_regex"));
    expect(f.api.AddBackend).not.toHaveBeenCalled();
    type(root, "ready_regex", "port (\\d+)");
    type(root, "health_path", "/");
    type(root, "grace", "");
    expect(root.querySelectorAll(".add-form .field-error")).toHaveLength(0);
    submit(root);
    await flush();
    expect(f.api.AddBackend).toHaveBeenCalledWith({ name: "web", kind: "custom", command: "python3 -m http.server 0 --bind 127.0.0.1", ready_regex: "port (\\d+)", health_path: "/" });
  });

  it("shows a pattern only Go refuses on the Ready pattern field", async () => {
    const { root, f } = await openForm();
    f.api.AddBackend.mockRejectedValueOnce("backend web: Ready pattern: not a valid regular expression: invalid or unsupported Perl syntax: `(?<`");
    pickKind(root, "custom");
    type(root, "name", "web");
    type(root, "command", "srv");
    type(root, "ready_regex", "(?<x(\\d+)"); // neither reads it: Go says why
    submit(root);
    await flush();
    expect(fieldError(root, "ready_regex")).toContain("invalid or unsupported Perl syntax");
    expect(root.querySelector("#add-ready_regex")!.getAttribute("aria-invalid")).toBe("true");
    expect(document.activeElement).toBe(root.querySelector("#add-ready_regex"));
  });

  it("sends an optional Host with any kind; Go's refusal of it lands on the field", async () => {
    const { root, f } = await openForm();
    const host = root.querySelector<HTMLInputElement>("#add-host")!;
    expect(host.placeholder).toBe("this computer — or user@server, an ssh alias");
    expect(host.required).toBe(false);
    expect(root.querySelector('label[for="add-host"]')!.textContent).toBe("Hostoptional");
    type(root, "name", "far");
    pickKind(root, "serve");
    type(root, "host", "-oProxyCommand=x");
    submit(root);
    await flush();
    expect(fieldError(root, "host")).toBe("A host does not start with '-'");
    expect(f.api.AddBackend).not.toHaveBeenCalled();
    f.api.AddBackend.mockRejectedValueOnce('backend far: Host: "me@bad box" is not an ssh destination like user@example.com');
    type(root, "host", " me@build-box ");
    submit(root);
    await flush();
    expect(f.api.AddBackend).toHaveBeenCalledWith({ name: "far", kind: "serve", host: "me@build-box" });
    expect(fieldError(root, "host")).toBe('"me@bad box" is not an ssh destination like user@example.com');
    expect(document.activeElement).toBe(root.querySelector("#add-host"));
    // A custom command keeps its host.
    pickKind(root, "custom");
    type(root, "command", "srv --port 0");
    type(root, "host", "box");
    submit(root);
    await flush();
    expect(f.api.AddBackend).toHaveBeenLastCalledWith({ name: "far", kind: "custom", command: "srv --port 0", host: "box" });
  });

  it("Cancel and Escape close it without saving", async () => {
    const { root, f } = await openForm();
    type(root, "name", "draft");
    click(byText(root, ".add-form button", "Cancel"));
    expect(root.querySelector("form.add-form")).toBeNull();
    click(byText(root, ".page-head button", "Add backend"));
    expect(root.querySelector<HTMLInputElement>("#add-name")!.value).toBe("");
    root.querySelector("#add-name")!.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
    expect(root.querySelector("form.add-form")).toBeNull();
    expect(f.api.AddBackend).not.toHaveBeenCalled();
  });
});

describe("Remove", () => {
  it("asks first, then removes the backend", async () => {
    const f = fakeApi(status([dashboard(), serve()]));
    const { root } = await mount(f.api);
    const remove = card(root, "api").querySelector<HTMLButtonElement>('[data-action="remove-ask"]')!;
    expect(remove.getAttribute("aria-label")).toBe("Remove backend api");
    click(remove);
    const confirm = card(root, "api").querySelector(".remove-confirm")!;
    expect(confirm.textContent).toContain("Remove backend api? Its processes will be stopped and it will be taken off the list.");
    expect(card(root, "hermes").querySelector(".remove-confirm")).toBeNull();
    expect(f.api.RemoveBackend).not.toHaveBeenCalled();
    expect(document.activeElement).toBe(confirm.querySelector('[data-action="remove-cancel"]'));
    // Cancel: nothing happens.
    click(byText(confirm, "button", "Cancel"));
    expect(root.querySelector(".remove-confirm")).toBeNull();
    expect(f.api.RemoveBackend).not.toHaveBeenCalled();
    // Again, and confirmed.
    click(card(root, "api").querySelector('[data-action="remove-ask"]'));
    const d = deferred<void>();
    f.api.RemoveBackend.mockReturnValueOnce(d.promise);
    click(card(root, "api").querySelector('[data-action="remove-confirm"]'));
    const busy = card(root, "api").querySelector<HTMLButtonElement>('[data-action="remove-confirm"]')!;
    expect(busy.textContent).toBe("Removing…");
    expect(busy.disabled).toBe(true);
    expect(card(root, "api").querySelector<HTMLButtonElement>('[data-action="stop"]')!.disabled).toBe(true);
    expect(f.api.RemoveBackend).toHaveBeenCalledWith("api");
    f.api.Status.mockResolvedValue(status([dashboard()]));
    d.resolve();
    await flush();
    expect(root.querySelector('[data-key="backend:api"]')).toBeNull();
    expect(root.querySelector(".remove-confirm")).toBeNull();
  });

  it("shows Go's error on the card and keeps the question open", async () => {
    const f = fakeApi(status([serve()]));
    f.api.RemoveBackend.mockRejectedValueOnce("backend api did not stop in time");
    const { root } = await mount(f.api);
    click(root.querySelector('[data-action="remove-ask"]'));
    click(root.querySelector('[data-action="remove-confirm"]'));
    await flush();
    expect(root.querySelector(".backend .inline-error")!.textContent).toBe("Backend api did not stop in time");
    expect(root.querySelector(".remove-confirm")).not.toBeNull();
  });

  it("says an attached Hermes keeps running", async () => {
    const { root } = await mount(fakeApi(status([attached()])).api);
    click(root.querySelector('[data-action="remove-ask"]'));
    expect(root.querySelector(".remove-confirm")!.textContent).toContain(
      "Remove backend hermes? This app will detach from it; the Hermes already running keeps running.",
    );
  });
});

describe("nothing moves under the pointer (issue 23, item 10)", () => {
  // Every element that is a card's box, in order, with its classes: what
  // decides where the buttons below sit.
  const boxes = (c: HTMLElement) => Array.from(c.children).map((e) => e.className);

  it("an error, a note or a Last restart line adds no box to a card", async () => {
    const f = fakeApi(status([dashboard()]));
    const { root, app } = await mount(f.api);
    const before = boxes(card(root, "hermes"));
    f.api.Restart.mockRejectedValueOnce("could not restart");
    click(card(root, "hermes").querySelector('[data-action="restart"]'));
    await flush();
    expect(card(root, "hermes").querySelector(".card-note-slot .inline-error")!.textContent).toBe("Could not restart");
    expect(boxes(card(root, "hermes"))).toEqual(before);
    app.applyStatus(status([dashboard({ restarts: 1, last_restart: "it exited with status 1" })]));
    await flush();
    const c = card(root, "hermes");
    expect(c.querySelector(".command-label .last-restart")!.textContent).toContain("it exited with status 1");
    expect(boxes(c)).toEqual(before);
  });

  it("the Remove button has no tooltip to cover the question's Remove", async () => {
    const { root } = await mount(fakeApi(status([dashboard()])).api);
    const ask = card(root, "hermes").querySelector('[data-action="remove-ask"]')!;
    expect(ask.getAttribute("title")).toBeNull();
    expect(ask.getAttribute("aria-label")).toBe("Remove backend hermes");
  });

  it("Open Hermes says Opening…, then that it opened", async () => {
    const f = fakeApi(status([dashboard()]));
    const d = deferred<string>();
    f.api.OpenHermes.mockReturnValueOnce(d.promise);
    const { root } = await mount(f.api);
    click(card(root, "hermes").querySelector('[data-action="open-hermes"]'));
    await flush();
    expect(card(root, "hermes").querySelector('[data-action="open-hermes"]')!.textContent).toBe("Opening…");
    d.resolve("http://127.0.0.1:43817/");
    await flush();
    expect(card(root, "hermes").querySelector(".card-note")!.textContent).toBe("Opened in your browser");
  });
});

describe("the command a card shows (issue 23, items 9 and 10)", () => {
  it("names the built-in backend, its real command on hover", async () => {
    const argv = ["/home/a/.local/state/hermes-desktop/core/hermes-desktop-core-0b5af5e34da134fe", "dashboard", "--no-open", "--host", "127.0.0.1", "--port", "0"];
    const { root } = await mount(fakeApi(status([dashboard({ command: argv, builtin: true })])).api);
    const cmd = card(root, "hermes").querySelector(".command-text")!;
    expect(cmd.textContent).toBe("Built-in backend (dashboard)");
    expect(cmd.getAttribute("title")).toBe(argv.join(" "));
  });

  it("wraps between arguments, never inside one", async () => {
    const { root } = await mount(fakeApi(status([dashboard()])).api);
    const cmd = card(root, "hermes").querySelector(".command-text")!;
    expect(cmd.textContent).toBe("hermes dashboard --no-open --host 127.0.0.1 --port 0");
    expect(Array.from(cmd.querySelectorAll(".arg")).map((a) => a.textContent)).toEqual(["hermes", "dashboard", "--no-open", "--host", "127.0.0.1", "--port", "0"]);
  });
});
