// Shared pieces: icons, buttons, badges, banners, empty states.

import { h, svg, type Attrs } from "./dom";
import { sentence } from "./format";
import type { Tone } from "./state";

type Shape = ["path", string] | ["circle", number, number, number] | ["rect", number, number, number, number, number];

const ICONS: Record<string, Shape[]> = {
  backends: [
    ["rect", 3, 4, 18, 7, 2],
    ["rect", 3, 13, 18, 7, 2],
    ["path", "M7 7.5h.01M7 16.5h.01M11 7.5h6M11 16.5h6"],
  ],
  tree: [
    ["rect", 3, 3, 7, 5, 1.5],
    ["rect", 14, 10, 7, 5, 1.5],
    ["rect", 14, 17, 7, 5, 1.5],
    ["path", "M6.5 8v11.5H14M6.5 12.5H14"],
  ],
  logs: [["path", "M4 6h16M4 10h16M4 14h10M4 18h13"]],
  reap: [
    ["path", "M12 3l7.5 3v5.5c0 4.6-3.2 8.3-7.5 9.5-4.3-1.2-7.5-4.9-7.5-9.5V6L12 3z"],
    ["path", "M9 12l2 2 4-4.5"],
  ],
  settings: [
    ["path", "M4 6h9M17 6h3M4 12h3M11 12h9M4 18h11M19 18h1"],
    ["circle", 15, 6, 2],
    ["circle", 9, 12, 2],
    ["circle", 17, 18, 2],
  ],
  power: [["path", "M12 3v8M6.6 6.8a7.5 7.5 0 1 0 10.8 0"]],
  external: [["path", "M14 4h6v6M20 4l-8.5 8.5M18 14v4.5a1.5 1.5 0 0 1-1.5 1.5h-11A1.5 1.5 0 0 1 4 18.5v-11A1.5 1.5 0 0 1 5.5 6H10"]],
  restart: [["path", "M20 12a8 8 0 1 1-2.4-5.7M20 4v5h-5"]],
  play: [["path", "M8 5.5v13l10.5-6.5z"]],
  stop: [["rect", 6.5, 6.5, 11, 11, 1.5]],
  folder: [["path", "M3.5 7.5A2 2 0 0 1 5.5 5.5h3.6l2 2h7.4a2 2 0 0 1 2 2v7.5a2 2 0 0 1-2 2h-13a2 2 0 0 1-2-2z"]],
  warning: [["path", "M12 4l9 16H3z"], ["path", "M12 10.5v4M12 17.5h.01"]],
  info: [["circle", 12, 12, 9], ["path", "M12 11v5.5M12 7.5h.01"]],
  search: [["circle", 11, 11, 6.5], ["path", "M20 20l-4.3-4.3"]],
  down: [["path", "M12 5v14M6 13l6 6 6-6"]],
  scan: [["path", "M4 8V5.5A1.5 1.5 0 0 1 5.5 4H8M16 4h2.5A1.5 1.5 0 0 1 20 5.5V8M20 16v2.5a1.5 1.5 0 0 1-1.5 1.5H16M8 20H5.5A1.5 1.5 0 0 1 4 18.5V16M4 12h16"]],
  check: [["path", "M5 12.5l4.5 4.5L19 7.5"]],
  x: [["path", "M6 6l12 12M18 6L6 18"]],
  plus: [["path", "M12 5v14M5 12h14"]],
  unlink: [["path", "M9.5 14.5l-1.8 1.8a3 3 0 0 1-4.2-4.2l2.6-2.6a3 3 0 0 1 4.2 0M14.5 9.5l1.8-1.8a3 3 0 0 1 4.2 4.2l-2.6 2.6a3 3 0 0 1-4.2 0M4 4l3 3M20 20l-3-3"]],
  trash: [["path", "M4.5 7h15M9.5 7V5a1 1 0 0 1 1-1h3a1 1 0 0 1 1 1v2M6.5 7l.8 11.6a1.5 1.5 0 0 0 1.5 1.4h6.4a1.5 1.5 0 0 0 1.5-1.4L17.5 7"]],
  copy: [["rect", 8, 8, 12, 12, 2], ["path", "M16 8V5.5A1.5 1.5 0 0 0 14.5 4h-9A1.5 1.5 0 0 0 4 5.5v9A1.5 1.5 0 0 0 5.5 16H8"]],
};

export function icon(name: keyof typeof ICONS | string, size = 16): SVGElement {
  const shapes = ICONS[name] ?? [];
  const kids = shapes.map((s) => {
    switch (s[0]) {
      case "path":
        return svg("path", { d: s[1] });
      case "circle":
        return svg("circle", { cx: s[1], cy: s[2], r: s[3] });
      case "rect":
        return svg("rect", { x: s[1], y: s[2], width: s[3], height: s[4], rx: s[5] });
    }
  });
  return svg(
    "svg",
    {
      class: "icon",
      width: size,
      height: size,
      viewBox: "0 0 24 24",
      fill: "none",
      stroke: "currentColor",
      "stroke-width": 1.8,
      "stroke-linecap": "round",
      "stroke-linejoin": "round",
      "aria-hidden": "true",
      focusable: "false",
    },
    ...kids,
  );
}

/** The app's logo mark: a winged messenger's H in a rounded tile. */
export function logo(size = 28): SVGElement {
  const grad = svg(
    "linearGradient",
    { id: "hd-logo-g", x1: 0, y1: 0, x2: 1, y2: 1 },
    svg("stop", { offset: 0, "stop-color": "#5b7cfa" }),
    svg("stop", { offset: 1, "stop-color": "#7a4fe0" }),
  );
  return svg(
    "svg",
    { class: "logo", width: size, height: size, viewBox: "0 0 32 32", "aria-hidden": "true", focusable: "false" },
    svg("defs", {}, grad),
    svg("rect", { x: 1, y: 1, width: 30, height: 30, rx: 8, fill: "url(#hd-logo-g)" }),
    svg("path", {
      d: "M11 9v14M21 9v14M11 16h10",
      stroke: "#fff",
      "stroke-width": 2.6,
      "stroke-linecap": "round",
      fill: "none",
    }),
    svg("path", {
      d: "M21 11.5c2.2-2.6 4.6-3.3 6.5-3-0.9 1.4-2.2 2.3-3.8 2.7 1.2 0.1 2.3-0.1 3.2-0.6-1 1.7-3 2.6-5.9 2.6",
      fill: "#fff",
      opacity: 0.9,
    }),
  );
}

export interface ButtonOpts {
  action: string;
  variant?: "primary" | "secondary" | "ghost" | "danger";
  size?: "sm" | "md";
  icon?: string;
  busy?: boolean;
  busyLabel?: string;
  disabled?: boolean;
  title?: string;
  attrs?: Attrs;
}

export function button(label: string, o: ButtonOpts): HTMLElement {
  const cls = `btn btn-${o.variant ?? "secondary"}${o.size === "sm" ? " btn-sm" : ""}${o.busy ? " is-busy" : ""}`;
  return h(
    "button",
    {
      type: "button",
      class: cls,
      "data-action": o.action,
      disabled: !!(o.busy || o.disabled),
      "aria-busy": o.busy ? "true" : null,
      title: o.title ?? null,
      ...o.attrs,
    },
    o.busy ? h("span.spinner", { "aria-hidden": "true" }) : o.icon ? icon(o.icon, 15) : null,
    h("span", null, o.busy && o.busyLabel ? o.busyLabel : label),
  );
}

export function badge(tone: Tone, label: string, opts: { pulse?: boolean; dot?: boolean } = {}): HTMLElement {
  return h(
    `span.badge.tone-${tone}`,
    { class: opts.pulse ? "pulse" : null },
    opts.dot === false ? null : h("span.dot", { "aria-hidden": "true" }),
    label,
  );
}

export function banner(
  tone: "warn" | "error" | "info" | "ok",
  body: (Node | string)[] | string,
  opts: { key?: string; dismissAction?: string; dismissKey?: string; actions?: Node[] } = {},
): HTMLElement {
  return h(
    `div.banner.banner-${tone}`,
    { role: tone === "error" ? "alert" : "status", "data-key": opts.key ?? null },
    icon(tone === "info" || tone === "ok" ? (tone === "ok" ? "check" : "info") : "warning", 18),
    h("div.banner-body", null, ...(typeof body === "string" ? [body] : body)),
    opts.actions ? h("div.banner-actions", null, ...opts.actions) : null,
    opts.dismissAction
      ? h(
          "button.icon-btn",
          { type: "button", "data-action": opts.dismissAction, "data-notice": opts.dismissKey ?? "", "aria-label": "Dismiss", title: "Dismiss" },
          icon("x", 14),
        )
      : null,
  );
}

export function emptyState(iconName: string, title: string, body?: string, actions?: Node[]): HTMLElement {
  return h(
    "div.empty",
    null,
    h("div.empty-icon", null, icon(iconName, 22)),
    h("div.empty-title", null, title),
    body ? h("p.empty-body", null, body) : null,
    actions && actions.length ? h("div.empty-actions", null, ...actions) : null,
  );
}

export function inlineError(message: string | undefined): HTMLElement | null {
  if (!message) return null;
  return h("div.inline-error", { role: "alert" }, icon("warning", 14), h("span", null, sentence(message)));
}

/**
 * What a page-head button did: its error, or a short confirmation. It sits
 * in the head's row, left of the buttons, so neither moves anything when
 * it appears; always present, so a screen reader hears it.
 */
export function actionStatus(error: string | undefined, note: string | undefined): HTMLElement {
  return h(
    "div.action-status",
    { role: "status" },
    error ? h("span.action-error", null, icon("warning", 14), h("span", null, sentence(error))) : note ? h("span.action-note", null, icon("check", 14), h("span", null, note)) : null,
  );
}

export function pageHeader(title: string, subtitle: string | null, ...actions: (Node | null)[]): HTMLElement {
  return h(
    "div.page-head",
    null,
    h("div.page-titles", null, h("h1.page-title", null, title), subtitle ? h("p.page-sub", null, subtitle) : null),
    h("div.page-actions", null, ...actions),
  );
}
