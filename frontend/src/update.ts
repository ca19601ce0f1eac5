// The self-update as the page shows it: what the banner says for each
// state of instance.update (Go: backend.UpdateInfo), the download's
// progress, and the three actions (Check now, Skip this version, Restart to
// update). Pure functions and an action table; the DOM is in
// src/views/update.ts.

import { formatBytes, sentence } from "./format";
import type { Action } from "./actions";
import type { Normalized, Wire } from "./types";

export type { UpdateAPI } from "./types";

export type UpdateInfo = Normalized<Wire.UpdateInfo>;
export type UpdateCheck = Normalized<Wire.UpdateCheck>;

/** Busy and error keys of the update actions (AppState.busy / errors). */
export const UPDATE_KEYS = { check: "update-check", apply: "update-apply", skip: "update-skip", error: "update" } as const;

export interface Progress {
  /** 0..100, or null when the size is not known yet. */
  percent: number | null;
  /** "12.3 MB of 40.1 MB · 5.1 MB/s" */
  text: string;
}

export function downloadProgress(u: Pick<UpdateInfo, "bytes" | "total" | "speed">): Progress {
  const bytes = u.bytes ?? 0;
  const total = u.total ?? 0;
  const percent = total > 0 ? Math.min(100, Math.floor((100 * bytes) / total)) : null;
  const parts = [total > 0 ? `${formatBytes(bytes)} of ${formatBytes(total)}` : formatBytes(bytes)];
  if (u.speed && u.speed > 0) parts.push(`${formatBytes(u.speed)}/s`);
  return { percent, text: parts.join(" · ") };
}

/** What the update downloads: "1.2 MB patch (full download 24.1 MB)" or
 *  "24.1 MB download"; null before it is offered. */
export function downloadSize(d: UpdateInfo["download"]): string | null {
  if (!d) return null;
  return d.patch ? `${formatBytes(d.size)} patch (full download ${formatBytes(d.full)})` : `${formatBytes(d.size)} download`;
}

/** The banner to show, if any. */
export type BannerKind = "none" | "managed" | "available" | "downloading" | "ready" | "applying" | "failed";

export function bannerKind(u: UpdateInfo | undefined | null): BannerKind {
  if (!u || !u.latest) return u?.state === "failed" ? "failed" : "none";
  if (u.skipped && u.skipped === u.latest && u.state !== "applying" && u.state !== "failed") return "none";
  switch (u.state) {
    case "available":
      return u.command ? "managed" : "available";
    case "downloading":
    case "ready":
    case "applying":
    case "failed":
      return u.state;
    default:
      return "none";
  }
}

/** The sidebar's one line about updates, and its tooltip. */
export function updateLine(u: UpdateInfo | undefined | null, now: number): { text: string; title: string } | null {
  if (!u) return null;
  if (u.probation_until && Date.parse(u.probation_until) > now) {
    return { text: "Just updated: checking its health", title: "If this version fails before the check ends, the previous one comes back." };
  }
  // An expired or replayed feed: not an update that failed.
  if (u.state === "failed" && u.reason === "stale") return { text: "Update feed refused", title: sentence(u.error ?? "") };
  switch (u.state) {
    case "off":
      return { text: "Updates off", title: u.error ?? "" };
    case "checking":
      return { text: "Checking for updates…", title: "" };
    case "idle":
      if (!u.checked_at) return { text: "Not checked yet", title: "" };
      if (u.latest && u.skipped === u.latest) return { text: `Skipped ${u.latest}`, title: "Skip this version: it is not offered" };
      // Newer but not offered (it failed after an earlier update, the
      // feed has no build of this install's platform and WebKitGTK
      // flavour, or it is being rolled out to other installs first): Go
      // says why, after its sentinel's words.
      if (u.latest && u.latest !== u.current && u.error) {
        const why = u.error.replace(/^no newer version( for this install( yet)?)?:\s*/, "");
        // (The sidebar has room for no more words than these.)
        return { text: `${u.latest} not offered${u.reason === "rollout" ? " yet" : ""}`, title: sentence(why) };
      }
      return { text: "Up to date", title: u.latest ? `The feed offers ${u.latest}` : "" };
    default:
      return u.latest ? { text: `Update: ${u.latest}`, title: "" } : null;
  }
}

/** The failed banner's first words: a refused feed (expired, replayed) is
 *  no update that failed, whatever was offered before. */
export function failedHeading(u: Pick<UpdateInfo, "latest" | "reason">): string {
  if (u.reason === "stale") return "The update feed was refused. ";
  return u.latest ? `The update to ${u.latest} failed. ` : "The update check failed. ";
}

/**
 * What the Settings page says under "Update feed" when the running app
 * does not simply use the saved feed: a flag or environment variable wins
 * over it, or updates stay off for another reason (a build without an
 * update key, a development version). null when there is nothing to add.
 */
export function feedNote(u: UpdateInfo | undefined | null): string | null {
  if (!u) return null;
  if (u.feed_from) {
    return u.feed
      ? `In use: ${u.feed}, set by ${u.feed_from}, which wins over this setting.`
      : `Updates are off: ${u.feed_from} is set empty, which wins over this setting.`;
  }
  // Off in this build: said before a feed is typed, not only after.
  if (u.state === "off" && (u.feed || u.build_off)) return `Updates are off: ${(u.error ?? "").replace(/^updates are off:\s*/, "")}`;
  return null;
}

/** The same for "Update automatically when idle". */
export function automaticNote(u: UpdateInfo | undefined | null): string | null {
  if (!u?.automatic_from) return null;
  return `${u.automatic ? "On" : "Off"}: set by ${u.automatic_from}, which wins over this setting.`;
}

/** The first paragraph of the release notes, short enough for a banner. */
export function notesSummary(notes: string | undefined, max = 160): string {
  const first = (notes ?? "").trim().split(/\n\s*\n/)[0].replace(/\s+/g, " ");
  return first.length > max ? `${first.slice(0, max - 1)}…` : first;
}

/** The update banner's actions (Check now, Restart to update, Skip this
 *  version), by data-action. */
export const UPDATE_ACTIONS: Readonly<Record<string, Action>> = {
  "update-check": (c) =>
    void c.run(UPDATE_KEYS.check, UPDATE_KEYS.error, async () => {
      await c.api.CheckForUpdate();
      await c.refresh();
    }),
  "update-apply": (c) => void c.run(UPDATE_KEYS.apply, UPDATE_KEYS.error, () => c.api.ApplyUpdate()),
  "update-skip": (c, target) =>
    void c.run(UPDATE_KEYS.skip, UPDATE_KEYS.error, async () => {
      await c.api.SkipVersion(target.dataset.version ?? "");
      await c.refresh();
    }),
};
