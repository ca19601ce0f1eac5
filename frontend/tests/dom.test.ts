import { describe, expect, it } from "vitest";
import { h, morph } from "../src/dom";

describe("h", () => {
  it("builds elements with classes, attributes and children", () => {
    const el = h("button.btn.btn-primary", { type: "button", disabled: true, "data-x": 3, hidden: false, title: null }, "Go", 1, null, ["a", h("b")]);
    expect(el.tagName).toBe("BUTTON");
    expect(el.className).toBe("btn btn-primary");
    expect(el.getAttribute("disabled")).toBe("");
    expect(el.getAttribute("data-x")).toBe("3");
    expect(el.hasAttribute("hidden")).toBe(false);
    expect(el.hasAttribute("title")).toBe(false);
    expect(el.textContent).toBe("Go1a");
    expect(el.querySelector("b")).not.toBeNull();
  });
  it("merges the class attribute", () => {
    expect(h("div.a", { class: "b c" }).className).toBe("a b c");
    expect(h("div", { class: "" }).className).toBe("");
  });
});

describe("morph", () => {
  it("patches in place, keeping nodes (and so focus)", () => {
    const root = h("div", null, h("input", { value: "a" }), h("p", { class: "x" }, "one"));
    document.body.appendChild(root);
    const input = root.querySelector("input")!;
    const p = root.querySelector("p")!;
    input.focus();
    morph(root, h("div", null, h("input", { value: "a" }), h("p", { class: "y" }, "two")));
    expect(root.querySelector("input")).toBe(input);
    expect(document.activeElement).toBe(input);
    expect(root.querySelector("p")).toBe(p);
    expect(p.className).toBe("y");
    expect(p.textContent).toBe("two");
    root.remove();
  });

  it("matches keyed children and drops removed ones", () => {
    const root = h("ul", null, ...["a", "b", "c"].map((k) => h("li", { "data-key": k }, k)));
    const [a, b, c] = Array.from(root.children);
    morph(root, h("ul", null, ...["b", "c", "d"].map((k) => h("li", { "data-key": k }, k.toUpperCase()))));
    const now = Array.from(root.children);
    expect(now.map((e) => e.textContent)).toEqual(["B", "C", "D"]);
    expect(now[0]).toBe(b);
    expect(now[1]).toBe(c);
    expect(a.isConnected).toBe(false);
    morph(root, h("ul", null, ...["d", "b"].map((k) => h("li", { "data-key": k }, k))));
    expect(Array.from(root.children).map((e) => e.textContent)).toEqual(["d", "b"]);
    expect(root.children[1]).toBe(b);
  });

  it("replaces nodes of another kind and removes extra ones", () => {
    const root = h("div", null, h("span", null, "s"), h("em", null, "e"), "tail");
    morph(root, h("div", null, h("strong", null, "S")));
    expect(root.innerHTML).toBe("<strong>S</strong>");
  });

  it("removes attributes that are gone and syncs input values", () => {
    const root = h("div", null, h("input", { type: "checkbox", checked: true, "data-a": "1" }), h("input", { value: "old" }));
    const [box, text] = Array.from(root.querySelectorAll("input"));
    text.value = "typed";
    morph(root, h("div", null, h("input", { type: "checkbox" }), h("input", { value: "new" })));
    expect(box.checked).toBe(false);
    expect(box.hasAttribute("data-a")).toBe(false);
    expect(text.value).toBe("new");
  });

  it("leaves the children of data-morph-skip elements alone", () => {
    const root = h("div", null, h("div", { "data-morph-skip": "", class: "a" }, h("p", null, "managed")));
    morph(root, h("div", null, h("div", { "data-morph-skip": "", class: "b" })));
    expect(root.firstElementChild!.className).toBe("b");
    expect(root.textContent).toBe("managed");
  });
});

describe("morph into a skipped subtree", () => {
  it("replaces a plain element that becomes data-morph-skip, so it gets its children", () => {
    const root = h("div", null, h("div", { class: "empty" }, h("span", null, "icon")));
    morph(root, h("div", null, h("div", { "data-morph-skip": "" }, h("div", { class: "lines" }))));
    expect(root.innerHTML).toBe('<div data-morph-skip=""><div class="lines"></div></div>');
  });
});
