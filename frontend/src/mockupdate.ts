// The browser preview's update: a feed that offers 1.1.0, a download that
// fills its progress bar in a few seconds, "Restart to update" that the
// preview cannot perform. It writes instance.update and calls emit.

import type { InstanceInfo } from "./types";
import type { UpdateAPI, UpdateCheck } from "./update";

const LATEST = "1.1.0";
const SIZE = 38.6 * 1024 * 1024;
const NOTES = "Faster startup, a quieter tray, and the update banner you are looking at.\n\nFull notes: the release page.";

export function createMockUpdates(instance: InstanceInfo, emit: () => void): UpdateAPI {
  const current = instance.version ?? "0.0.0";
  instance.update = { state: "idle", current, checked_at: new Date().toISOString(), latest: current };
  let timer: ReturnType<typeof setInterval> | null = null;
  const download = () => {
    if (timer) return;
    const u = instance.update!;
    Object.assign(u, { state: "downloading", latest: LATEST, notes: NOTES, bytes: 0, total: SIZE, speed: 9.3 * 1024 * 1024 });
    timer = setInterval(() => {
      u.bytes = Math.min(SIZE, (u.bytes ?? 0) + SIZE / 24);
      if (u.bytes >= SIZE) {
        clearInterval(timer!);
        timer = null;
        u.state = "ready";
      }
      emit();
    }, 200);
    emit();
  };
  return {
    async CheckForUpdate(): Promise<UpdateCheck> {
      download();
      return { current, latest: LATEST, available: true, notes: NOTES, reason: "" };
    },
    async ApplyUpdate() {
      throw "Restart to update is not available in the browser preview";
    },
    async SkipVersion(version: string) {
      const u = instance.update!;
      u.skipped = version;
      if (timer) clearInterval(timer);
      timer = null;
      u.state = "idle";
      emit();
    },
  };
}

/**
 * The preview's answer to App.FeedURLError: Go's rule (settings.ValidateFeedURL)
 * as the browser's URL parser reads it, near enough for a preview; the app
 * asks Go itself.
 */
export async function mockFeedURLError(raw: string): Promise<string> {
  if (raw === "") return "";
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return `Update feed: "${raw}" is not an absolute URL like https://example.com/hermes-desktop/stable.json`;
  }
  if (new TextEncoder().encode(raw).length > 2048) return "Update feed: longer than 2048 bytes";
  const loopback = u.hostname === "localhost" || u.hostname === "[::1]" || /^127\./.test(u.hostname);
  if (u.protocol === "https:" || (u.protocol === "http:" && loopback)) return "";
  return `Update feed: "${raw}" must be https (http only on this machine)`;
}
