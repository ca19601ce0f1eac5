// Running times on the page ("up 3m", the sidebar's "Running") without a
// timer that re-renders everything (STYLE.md rule 17). A view renders each
// one as an element that says what it counts from (data-since); between
// renders, syncClocks rewrites only those texts, and says when the next one
// will read differently, so the app arms a single timer for then.

import { h } from "./dom";
import { durationChangesIn, formatDuration } from "./format";

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
 * that changed, and returns the milliseconds until one next changes (NaN
 * when root shows none).
 *
 * Each text changes on its own schedule, never batched with another: one
 * WebKitGTK update repaints the bounding box of everything that changed in
 * it, so the sidebar's "Running" and a card's uptime changing together
 * repaint most of the window. Batched once a minute, that cost 384 ms of
 * CPU in 180 s at rest; apart, two small repaints a minute, 200 ms
 * (bench/idle, side by side).
 */
export function syncClocks(root: ParentNode, now: number): number {
  let next = NaN;
  for (const el of Array.from(root.querySelectorAll<HTMLElement>("[data-since]"))) {
    const since = Number(el.dataset.since);
    const text = (el.dataset.prefix ?? "") + formatDuration(now - since);
    if (el.textContent !== text) setText(el, text);
    const wait = durationChangesIn(now - since);
    if (Number.isFinite(wait) && !(wait >= next)) next = wait; // next starts as NaN
  }
  return next;
}

/** Sets an element's text, keeping its text node when it has just one. */
function setText(el: HTMLElement, text: string): void {
  const only = el.firstChild;
  if (only && only === el.lastChild && only.nodeType === Node.TEXT_NODE) only.nodeValue = text;
  else el.textContent = text;
}
