// A tiny element builder and an in-place DOM patcher.
//
// Views are pure functions from state to a fresh element tree. The app then
// patches the live DOM to match (morph), so focus, selection, scroll
// positions and hover states survive the frequent status/log updates.
// Behaviour is wired by event delegation on data-action attributes, never by
// listeners on rendered elements.

type Child = Node | string | number | null | undefined | false | Child[];
type AttrValue = string | number | boolean | null | undefined;
export type Attrs = Record<string, AttrValue>;

/** h("div.card.ok", { "data-key": "x" }, "text", child) */
export function h(tag: string, attrs?: Attrs | null, ...children: Child[]): HTMLElement {
  const [name, ...classes] = tag.split(".");
  const el = document.createElement(name || "div");
  if (classes.length) el.className = classes.join(" ");
  if (attrs) {
    for (const [k, v] of Object.entries(attrs)) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") {
        const extra = String(v).trim();
        if (extra) el.className = el.className ? `${el.className} ${extra}` : extra;
      } else if (k === "value" && (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement)) {
        el.setAttribute("value", String(v));
        el.value = String(v);
      } else if (k === "checked" && el instanceof HTMLInputElement) {
        el.setAttribute("checked", "");
        el.checked = true;
      } else {
        el.setAttribute(k, v === true ? "" : String(v));
      }
    }
  }
  append(el, children);
  return el;
}

function append(el: Node, children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else if (c instanceof Node) el.appendChild(c);
    else el.appendChild(document.createTextNode(String(c)));
  }
}

const SVG_NS = "http://www.w3.org/2000/svg";

/** An SVG element from markup-like parts (for icons). */
export function svg(tag: string, attrs: Record<string, string | number>, ...children: Element[]): SVGElement {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  for (const c of children) el.appendChild(c);
  return el;
}

function keyOf(n: Node): string | null {
  return n.nodeType === 1 ? (n as Element).getAttribute("data-key") : null;
}

function sameKind(a: Node, b: Node): boolean {
  if (a.nodeType !== b.nodeType) return false;
  if (a.nodeType !== 1) return true;
  const ea = a as Element;
  const eb = b as Element;
  return (
    ea.tagName === eb.tagName &&
    ea.namespaceURI === eb.namespaceURI &&
    keyOf(a) === keyOf(b) &&
    // A skipped subtree is only ever patched from another skipped subtree;
    // anything else turning into one is replaced, so it gets its children.
    ea.hasAttribute("data-morph-skip") === eb.hasAttribute("data-morph-skip")
  );
}

function morphAttrs(from: Element, to: Element): void {
  for (const a of Array.from(from.attributes)) {
    if (!to.hasAttribute(a.name)) from.removeAttribute(a.name);
  }
  for (const a of Array.from(to.attributes)) {
    if (from.getAttribute(a.name) !== a.value) from.setAttribute(a.name, a.value);
  }
  if (from instanceof HTMLInputElement && to instanceof HTMLInputElement) {
    if (from.type === "checkbox" || from.type === "radio") {
      if (from.checked !== to.checked) from.checked = to.checked;
    } else if (from.value !== to.value) {
      from.value = to.value;
    }
  } else if (from instanceof HTMLTextAreaElement && to instanceof HTMLTextAreaElement) {
    if (from.value !== to.value) from.value = to.value;
  } else if (from instanceof HTMLSelectElement && to instanceof HTMLSelectElement) {
    // Options are patched first (children), then the value is set below.
  }
}

/**
 * Makes `from` look like `to`, reusing nodes where it can. Children with a
 * data-key attribute are matched by key, the rest by position. Returns the
 * node now in the document (`from`, or `to` if it had to be replaced).
 */
export function morph(from: Node, to: Node): Node {
  if (!sameKind(from, to)) {
    from.parentNode?.replaceChild(to, from);
    return to;
  }
  if (from.nodeType === 3 || from.nodeType === 8) {
    if (from.nodeValue !== to.nodeValue) from.nodeValue = to.nodeValue;
    return from;
  }
  const fe = from as Element;
  const te = to as Element;
  morphAttrs(fe, te);
  if (fe.hasAttribute("data-morph-skip")) return from;
  morphChildren(fe, te);
  if (fe instanceof HTMLSelectElement && te instanceof HTMLSelectElement) {
    const want = te.getAttribute("data-value") ?? te.value;
    if (fe.value !== want) fe.value = want;
  }
  return from;
}

function morphChildren(from: Element, to: Element): void {
  const wanted = Array.from(to.childNodes);
  const wantedKeys = new Set<string>();
  for (const n of wanted) {
    const k = keyOf(n);
    if (k !== null) wantedKeys.add(k);
  }
  // Drop keyed children that are gone, so a list that loses its head (a
  // capped log) does not shift every remaining node.
  const byKey = new Map<string, Node>();
  for (const n of Array.from(from.childNodes)) {
    const k = keyOf(n);
    if (k === null) continue;
    if (!wantedKeys.has(k) || byKey.has(k)) from.removeChild(n);
    else byKey.set(k, n);
  }

  let cursor: Node | null = from.firstChild;
  for (const next of wanted) {
    const k = keyOf(next);
    let match: Node | null = null;
    if (k !== null) {
      match = byKey.get(k) ?? null;
      if (match) byKey.delete(k);
    } else if (cursor && keyOf(cursor) === null && sameKind(cursor, next)) {
      match = cursor;
    }
    if (match) {
      if (match === cursor) cursor = cursor.nextSibling;
      else from.insertBefore(match, cursor);
      morph(match, next);
    } else {
      from.insertBefore(next, cursor);
    }
  }
  while (cursor) {
    const after: Node | null = cursor.nextSibling;
    from.removeChild(cursor);
    cursor = after;
  }
}
