// Running times on the page ("up 3m", the sidebar's "Running") without a
// timer that re-renders everything (STYLE.md rule 17). A view renders each
// one as an element that says what it counts from (data-since); between
// renders, syncClocks rewrites only those texts, and says when the next one
// will read differently, so the app arms a single timer for then.

import { h } from "./dom";
import { durationChangesIn, durationStep, formatDuration, MINUTE } from "./format";

/**
 * An element showing prefix + the time since `since` (ms since the epoch).
 * Its class "clock" gives it a fixed, contained box (style.css), so a new
 * text lays out and repaints nothing around it; tag's classes set its width.
 */
export function runningTime(tag: string, prefix: string, since: number, now: number): HTMLElement {
  return h(tag, { class: "clock", "data-since": String(since), "data-prefix": prefix || null }, prefix + formatDuration(now - since));
}

/**
 * Brings every running time under root up to date, touching only the texts
 * that changed, and returns the milliseconds until the page should next do
 * so (NaN when root shows none).
 *
 * Coarse running times that change at nearly the same moment share one
 * wakeup: a text counting minutes or hours may be shown up to a tenth of its
 * unit late (6 s, 6 min), so the timer fires at the latest moment that keeps
 * every text within that, and catches all that are due by then. The app's
 * "Running" and a backend's uptime, a second or two apart, then repaint the
 * window once a minute, not twice: each repaint of a WebKitGTK window
 * without compositing redraws all of it. Seconds are never late.
 */
export function syncClocks(root: ParentNode, now: number): number {
  let next = NaN;
  for (const el of Array.from(root.querySelectorAll<HTMLElement>("[data-since]"))) {
    const elapsed = now - Number(el.dataset.since);
    const text = (el.dataset.prefix ?? "") + formatDuration(elapsed);
    if (el.textContent !== text) setText(el, text);
    const step = elapsed < 0 ? 0 : durationStep(elapsed);
    const latest = durationChangesIn(elapsed) + (step >= MINUTE ? step / 10 : 0);
    if (Number.isFinite(latest) && !(latest >= next)) next = latest; // next starts as NaN
  }
  return next;
}

/** Sets an element's text, keeping its text node when it has just one. */
function setText(el: HTMLElement, text: string): void {
  const only = el.firstChild;
  if (only && only === el.lastChild && only.nodeType === Node.TEXT_NODE) only.nodeValue = text;
  else el.textContent = text;
}
