// Layout rules a test can hold the stylesheet to.
import { describe, expect, it } from "vitest";
import css from "../src/style.css?raw";

/** The declarations of the rule whose selector list is exactly sel. */
function rule(sel: string): string {
  for (const m of css.matchAll(/([^{}]+)\{([^{}]*)\}/g)) {
    if (m[1].replace(/\/\*[\s\S]*?\*\//g, "").trim() === sel) return m[2].replace(/\/\*[\s\S]*?\*\//g, "");
  }
  throw new Error(`no rule for ${sel}`);
}

describe("checkboxes", () => {
  // The real input is hidden with position: absolute. Placed against the
  // page (no positioned label), it sat below the fold, and a click on a
  // checkbox low in the Settings form focused it and scrolled the whole
  // page out of view: a blank window.
  it("keep their hidden input inside the label", () => {
    expect(rule(".check input")).toMatch(/position:\s*absolute/);
    expect(rule(".check")).toMatch(/position:\s*relative/);
  });
});

describe("text fields", () => {
  // A field whose size could depend on its text makes every keystroke lay
  // out the page's grid, and WebKitGTK then repaints the whole window
  // below the top bar: 38 ms of web-process CPU per key in Settings, 3 ms
  // with the field contained (bench/window). Every text field the forms
  // draw has the class "input".
  it("are contained, so a keystroke lays out the field alone", () => {
    expect(rule("input.input")).toMatch(/contain:\s*size layout/);
  });
});

describe("fonts on Linux", () => {
  // WebKitGTK asks fontconfig for every family of a list it does not have,
  // at each weight and size, before the window's first layout: the lists
  // for macOS and Windows cost 230 ms of the first frame under Xvfb, the
  // generic names 40 ms (bench/window). There the generic names are the
  // fonts the user chose.
  it("are the generic families alone", () => {
    const linux = rule(':root[data-platform="linux"]');
    expect(linux).toMatch(/--font:\s*sans-serif;/);
    expect(linux).toMatch(/--mono:\s*monospace;/);
  });
  it("are only named through the variables", () => {
    const families = [...css.matchAll(/font-family:\s*([^;]+);/g)].map((m) => m[1].trim());
    expect(families.filter((f) => !/^var\(--(font|mono)\)$|^inherit$/.test(f))).toEqual([]);
  });
});

describe("shadows on Linux", () => {
  // Cairo blurs each blurred shadow in an offscreen pass: with one under
  // every button and card, WebKitGTK without the GPU took 75-90 ms to paint
  // the first frame, 20-40 ms with unblurred ones (bench/window).
  it("are unblurred, in both themes", () => {
    const blurs = (decls: string) =>
      [...decls.matchAll(/--shadow(?:-sm)?:\s*([^;]+);/g)].flatMap((m) => m[1].split(/,(?![^(]*\))/).map((s) => s.trim().split(/\s+/)[2]));
    const light = rule(':root[data-platform="linux"]');
    const dark = css.match(/@media \(prefers-color-scheme: dark\) \{\s*:root\[data-platform="linux"\] \{([^}]*)\}/)?.[1] ?? "";
    for (const decls of [light, dark]) {
      expect(blurs(decls).length).toBe(2);
      expect(blurs(decls)).toEqual(["0", "0"]);
    }
  });
});
