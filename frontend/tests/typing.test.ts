// Typing into a form re-renders that form, not the page (issue 23, item 6):
// a keystroke in Settings or Add backend builds the form's elements alone,
// and a full render (a status event) meanwhile keeps the value and caret.
import { afterEach, describe, expect, it, vi } from "vitest";
import { App } from "../src/app";
import type { Tab } from "../src/state";
import { backend, fakeApi, flush, NOW, status } from "./fixtures";

let mounted: { app: App; root: HTMLElement }[] = [];
afterEach(() => {
  for (const m of mounted) {
    m.app.destroy();
    m.root.remove();
  }
  mounted = [];
  vi.restoreAllMocks();
});

/** An app whose renders run when the test says (run()), as frames would. */
async function mountQueued(tab: Tab, st = status([backend()])) {
  const f = fakeApi(st);
  const queue: (() => void)[] = [];
  const run = () => {
    while (queue.length) queue.shift()!();
  };
  const root = document.createElement("div");
  document.body.appendChild(root);
  const app = new App(f.api, root, { now: () => NOW, schedule: (fn) => queue.push(fn), timers: false, initialTab: tab });
  mounted.push({ app, root });
  const started = app.start();
  run();
  await started;
  await flush();
  run();
  return { f, app, root, run };
}

/** Types value into input as a person's last key would leave it. */
function key(input: HTMLInputElement, value: string): void {
  input.focus();
  input.value = value;
  input.setSelectionRange(value.length, value.length);
  input.dispatchEvent(new Event("input", { bubbles: true }));
}

/** What one keystroke costs: the elements built, the full renders, and the
 *  nodes changed outside form. */
function watch(app: App, root: HTMLElement, form: Element) {
  const created = vi.spyOn(document, "createElement");
  const createdNS = vi.spyOn(document, "createElementNS");
  const render = vi.spyOn(app, "render");
  const outside: Node[] = [];
  const obs = new MutationObserver((records) => {
    for (const r of records) if (!form.contains(r.target)) outside.push(r.target);
  });
  obs.observe(root, { subtree: true, childList: true, attributes: true, characterData: true });
  return {
    done() {
      const seen = obs.takeRecords();
      for (const r of seen) if (!form.contains(r.target)) outside.push(r.target);
      obs.disconnect();
      const n = created.mock.calls.length + createdNS.mock.calls.length;
      created.mockRestore();
      createdNS.mockRestore();
      return { created: n, renders: render.mock.calls.length, outside };
    },
  };
}

const elementsIn = (el: Element) => el.querySelectorAll("*").length + 1;

describe("typing in Settings", () => {
  const input = (root: HTMLElement, field: string) => root.querySelector<HTMLInputElement>(`[data-input="setting"][data-field="${field}"]`)!;
  const form = (root: HTMLElement) => root.querySelector<HTMLFormElement>('form[data-form="settings"]')!;
  const save = (root: HTMLElement) => root.querySelector<HTMLButtonElement>('[data-action="settings-save"]')!;

  it("builds the form alone, not the page, and changes nothing outside it", async () => {
    const { app, root, run } = await mountQueued("settings");
    const page = elementsIn(root);
    const w = watch(app, root, form(root));
    key(input(root, "health_path"), "/h");
    run();
    const { created, renders, outside } = w.done();
    expect(renders).toBe(0);
    // Exactly one fresh copy of the form; the page is several times that.
    expect(created).toBe(elementsIn(form(root)));
    expect(created).toBeLessThan(page);
    expect(outside).toEqual([]);
    expect(input(root, "health_path").value).toBe("/h");
  });

  it("still updates what depends on the field: Save, the custom chip, the error as it is fixed", async () => {
    const { app, root, run } = await mountQueued("settings");
    expect(save(root).disabled).toBe(true);
    key(input(root, "grace"), "7");
    run();
    expect(save(root).disabled).toBe(false);
    expect(root.querySelector(".form-status")!.textContent).toContain("Unsaved changes");
    expect(input(root, "grace").closest(".field")!.querySelector(".chip-accent")).not.toBeNull();
    form(root).dispatchEvent(new Event("submit", { bubbles: true, cancelable: true }));
    run();
    await flush();
    run();
    expect(input(root, "grace").closest(".field")!.classList.contains("has-error")).toBe(true);
    const render = vi.spyOn(app, "render");
    key(input(root, "grace"), "7s");
    run();
    expect(render).not.toHaveBeenCalled();
    expect(input(root, "grace").closest(".field")!.classList.contains("has-error")).toBe(false);
    expect(root.querySelector("#set-grace-err")).toBeNull();
  });

  it("keeps the value, the caret and the focus through a status event's full render", async () => {
    const { f, root, run } = await mountQueued("settings");
    const el = input(root, "ready_regex");
    key(el, "port=(\\d+)");
    el.setSelectionRange(3, 3); // the caret moved back with an arrow key
    f.emitStatus(status([backend({ restarts: 1 })])); // queues a full render
    key(el, "port=(\\d+)x"); // typed before the frame
    el.setSelectionRange(4, 4);
    run();
    expect(input(root, "ready_regex")).toBe(el);
    expect(el.value).toBe("port=(\\d+)x");
    expect(el.selectionStart).toBe(4);
    expect(document.activeElement).toBe(el);
  });
});

describe("typing in Add backend", () => {
  const open = async () => {
    const m = await mountQueued("backends");
    m.root.querySelector<HTMLElement>('[data-action="add-open"]')!.click();
    m.run();
    await flush(); // the form reads the shared readiness settings it shows as placeholders
    m.run();
    return m;
  };
  const input = (root: HTMLElement, field: string) => root.querySelector<HTMLInputElement>(`[data-input="add"][data-field="${field}"]`)!;
  const form = (root: HTMLElement) => root.querySelector<HTMLFormElement>('form[data-form="add-backend"]')!;

  it("builds the form alone, not the page, and changes nothing outside it", async () => {
    const { app, root, run } = await open();
    const page = elementsIn(root);
    const w = watch(app, root, form(root));
    key(input(root, "name"), "re");
    run();
    const { created, renders, outside } = w.done();
    expect(renders).toBe(0);
    expect(created).toBe(elementsIn(form(root)));
    expect(created).toBeLessThan(page);
    expect(outside).toEqual([]);
  });

  it("clears a field's error as it is fixed and swaps fields with the kind, still without a page render", async () => {
    const { app, root, run } = await open();
    form(root).dispatchEvent(new Event("submit", { bubbles: true, cancelable: true }));
    run();
    await flush();
    run();
    expect(root.querySelector("#add-name-err")!.textContent).toContain("Enter a name");
    const render = vi.spyOn(app, "render");
    key(input(root, "name"), "research");
    run();
    expect(root.querySelector("#add-name-err")).toBeNull();
    const custom = root.querySelector<HTMLInputElement>("#add-kind-custom")!;
    custom.checked = true;
    custom.dispatchEvent(new Event("change", { bubbles: true }));
    run();
    expect(render).not.toHaveBeenCalled();
    expect(root.querySelector("#add-command")).not.toBeNull();
    expect(root.querySelector("#add-profile")).toBeNull();
    expect(input(root, "name").value).toBe("research");
  });

  it("keeps the value and caret through a status event's full render", async () => {
    const { f, root, run } = await open();
    const el = input(root, "name");
    key(el, "resea");
    f.emitStatus(status([backend({ restarts: 2 })]));
    key(el, "research");
    el.setSelectionRange(2, 5);
    run();
    expect(input(root, "name")).toBe(el);
    expect(el.value).toBe("research");
    expect([el.selectionStart, el.selectionEnd]).toEqual([2, 5]);
    expect(document.activeElement).toBe(el);
  });
});
