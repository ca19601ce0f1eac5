// Times on the page that change as time passes ("up 3m"; the sidebar's
// "Started 09:41", which gains its date at midnight) without a timer that
// re-renders everything (STYLE.md rule 17). A view renders each one as an
// element that says what it counts from (data-since) or which moment it
// shows (data-at); between renders, syncClocks rewrites only those texts,
// and says when the next one will read differently, so the app arms a
// single timer for then.

import { h } from "./dom";
import { ageChangesIn, clockTimeChangesIn, durationChangesIn, formatAge, formatClockTime, formatDuration } from "./format";
import { countdownChangesIn, countdownText } from "./remote";

/**
 * An element showing prefix + the time since `since` (ms since the epoch).
 * Its class "clock" gives it a fixed, contained box (style.css), so a new
 * text lays out and repaints nothing around it; tag's classes set its width.
 */
export function runningTime(tag: string, prefix: string, since: number, now: number): HTMLElement {
  // A timer to assistive technology (polite only when asked, which a timer
  // never is): the card's uptime is read with the card, not announced at
  // each tick.
  return h(tag, { class: "clock", role: "timer", "data-since": String(since), "data-prefix": prefix || null }, prefix + formatDuration(now - since));
}

/**
 * An element showing the age of what started at since (ms since the
 * epoch) in its largest unit ("45s", "3m", "2h"): a process's age in the
 * Process tree, measured against now rather than the tree's last sample,
 * which the page is not sent again while the tree stays the same. Past its
 * first minute it changes once a minute, then once an hour.
 */
export function runningAge(tag: string, since: number, now: number): HTMLElement {
  return h(tag, { class: "clock", "data-since": String(since), "data-format": "age" }, formatAge(now - since));
}

/**
 * An element showing the moment at (ms since the epoch) as a clock time,
 * with its date once it is not today (formatClockTime). Unlike a running
 * time it never wakes the page at rest: the app's start, shown as a running
 * time, was a second repaint a minute beside the backend's uptime.
 */
export function clockTime(tag: string, at: number, now: number): HTMLElement {
  return h(tag, { class: "clock", "data-at": String(at) }, formatClockTime(at, now));
}

/**
 * An element counting down to until (ms since the epoch): prefix + the
 * time left + suffix ("Reconnecting (attempt 3, next in 8 s)"), each
 * second, then done once until has passed, after which it never wakes the
 * page again.
 */
export function countdown(tag: string, c: { until: number; prefix: string; suffix: string; done: string }, now: number, attrs: Record<string, string | null> = {}): HTMLElement {
  return h(
    tag,
    { ...attrs, class: "clock", "data-until": String(c.until), "data-prefix": c.prefix, "data-suffix": c.suffix, "data-done": c.done },
    countdownNow(c.until, c.prefix, c.suffix, c.done, now),
  );
}

function countdownNow(until: number, prefix: string, suffix: string, done: string, now: number): string {
  return until > now ? prefix + countdownText(until - now) + suffix : done;
}

/**
 * Brings every running time, countdown and clock time under root up to date, touching
 * only the texts that changed, and returns the milliseconds until one next
 * changes (NaN when root shows none).
 *
 * Each text changes on its own schedule, never batched with another: one
 * WebKitGTK update repaints the bounding box of everything that changed in
 * it, so two texts far apart (the sidebar and a card, or two cards) changing
 * together repaint most of the window. Batched once a minute, that cost 384
 * ms of CPU in 180 s at rest; apart, two small repaints a minute, 200 ms
 * (bench/idle, side by side).
 */
export function syncClocks(root: ParentNode, now: number): number {
  let next = NaN;
  const soonest = (wait: number) => {
    if (Number.isFinite(wait) && !(wait >= next)) next = wait; // next starts as NaN
  };
  for (const el of Array.from(root.querySelectorAll<HTMLElement>("[data-since]"))) {
    const since = Number(el.dataset.since);
    const age = el.dataset.format === "age";
    const text = (el.dataset.prefix ?? "") + (age ? formatAge : formatDuration)(now - since);
    if (el.textContent !== text) setText(el, text);
    soonest((age ? ageChangesIn : durationChangesIn)(now - since));
  }
  for (const el of Array.from(root.querySelectorAll<HTMLElement>("[data-until]"))) {
    const until = Number(el.dataset.until);
    const text = countdownNow(until, el.dataset.prefix ?? "", el.dataset.suffix ?? "", el.dataset.done ?? "", now);
    if (el.textContent !== text) setText(el, text);
    soonest(countdownChangesIn(until - now));
  }
  for (const el of Array.from(root.querySelectorAll<HTMLElement>("[data-at]"))) {
    const at = Number(el.dataset.at);
    const text = formatClockTime(at, now);
    if (el.textContent !== text) setText(el, text);
    soonest(clockTimeChangesIn(at, now));
  }
  return next;
}

/** Sets an element's text, keeping its text node when it has just one. */
function setText(el: HTMLElement, text: string): void {
  const only = el.firstChild;
  if (only && only === el.lastChild && only.nodeType === Node.TEXT_NODE) only.nodeValue = text;
  else el.textContent = text;
}
