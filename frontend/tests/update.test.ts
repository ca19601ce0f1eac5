import { describe, expect, it } from "vitest";
import { automaticNote, bannerKind, downloadProgress, downloadSize, feedNote, notesSummary, updateLine, type UpdateInfo } from "../src/update";
import { fakeApi, flush, mounter, NOW, status } from "./fixtures";

const { mount } = mounter();


const withUpdate = (u: UpdateInfo) => {
  const st = status();
  st.instance = { ...st.instance, update: u };
  return st;
};

const click = (root: HTMLElement, sel: string) => {
  const el = root.querySelector<HTMLElement>(sel);
  if (!el) throw new Error(`no ${sel}`);
  el.click();
};

describe("update logic", () => {
  it("formats the download's progress", () => {
    expect(downloadProgress({ bytes: 10 * 1024 * 1024, total: 40 * 1024 * 1024, speed: 5 * 1024 * 1024 })).toEqual({
      percent: 25,
      text: "10.0 MB of 40.0 MB · 5.0 MB/s",
    });
    expect(downloadProgress({ bytes: 512 })).toEqual({ percent: null, text: "512 B" });
    expect(downloadProgress({ bytes: 50, total: 40 }).percent).toBe(100);
  });

  it("picks a banner per state, none for a skipped version", () => {
    const u = (over: Partial<UpdateInfo>): UpdateInfo => ({ state: "idle", current: "1.0.0", latest: "1.1.0", ...over });
    expect(bannerKind(undefined)).toBe("none");
    expect(bannerKind(u({ state: "off", latest: undefined }))).toBe("none");
    expect(bannerKind(u({ state: "idle" }))).toBe("none");
    expect(bannerKind(u({ state: "available" }))).toBe("available");
    expect(bannerKind(u({ state: "available", command: "sudo apt install ./x.deb" }))).toBe("managed");
    expect(bannerKind(u({ state: "downloading" }))).toBe("downloading");
    expect(bannerKind(u({ state: "ready" }))).toBe("ready");
    expect(bannerKind(u({ state: "ready", skipped: "1.1.0" }))).toBe("none");
    expect(bannerKind(u({ state: "ready", skipped: "1.0.5" }))).toBe("ready");
    expect(bannerKind(u({ state: "failed", latest: undefined, error: "offline" }))).toBe("failed");
  });

  it("says in the sidebar whether updates are on", () => {
    expect(updateLine({ state: "off", current: "1", error: "no update key" }, NOW)).toEqual({ text: "Updates off", title: "no update key" });
    expect(updateLine({ state: "idle", current: "1.0.0" }, NOW)?.text).toBe("Not checked yet");
    expect(updateLine({ state: "idle", current: "1.0.0", latest: "1.0.0", checked_at: "2024-05-01T10:00:00Z" }, NOW)?.text).toBe("Up to date");
    expect(updateLine({ state: "idle", current: "1.1.0", probation_until: "2024-05-01T10:04:00Z" }, NOW)?.text).toContain("checking its health");
    expect(updateLine({ state: "idle", current: "1.0.0", latest: "1.1.0", skipped: "1.1.0", checked_at: "2024-05-01T10:00:00Z" }, NOW)?.text).toBe("Skipped 1.1.0");
    const bad = updateLine({ state: "idle", current: "1.0.0", latest: "1.2.0", error: "1.2.0 failed after an earlier update", checked_at: "2024-05-01T10:00:00Z" }, NOW);
    expect(bad).toEqual({ text: "1.2.0 not offered", title: "1.2.0 failed after an earlier update" });
    // The feed has no build of this install's flavour: said as Go words it, without its sentinel's.
    const noBuild = updateLine({
      state: "idle", current: "1.0.0", latest: "1.1.0", reason: "no-build", checked_at: "2024-05-01T10:00:00Z",
      error: "no newer version for this install: version 1.1.0 has no build for linux-amd64-webkit41 (the WebKitGTK 4.1 build); the feed has it for linux-amd64-webkit40",
    }, NOW);
    expect(noBuild).toEqual({
      text: "1.1.0 not offered",
      title: "Version 1.1.0 has no build for linux-amd64-webkit41 (the WebKitGTK 4.1 build); the feed has it for linux-amd64-webkit40",
    });
    // Being rolled out to other installs first: not yet, and why.
    const rollout = updateLine({
      state: "idle", current: "1.0.0", latest: "1.3.0", reason: "rollout", checked_at: "2024-05-01T10:00:00Z",
      error: "no newer version for this install yet: 1.3.0 is being rolled out to 30% of installs; this install is not yet among them",
    }, NOW);
    expect(rollout).toEqual({ text: "1.3.0 not offered yet", title: "1.3.0 is being rolled out to 30% of installs; this install is not yet among them" });
    // An expired or replayed feed is refused, whatever it offered before.
    const stale = updateLine({
      state: "failed", current: "1.0.0", latest: "1.2.0", reason: "stale",
      error: "the update feed's signature expired on 2026-01-02 03:04 UTC: the feed is stale or being replayed",
    }, NOW);
    expect(stale).toEqual({ text: "Update feed refused", title: "The update feed's signature expired on 2026-01-02 03:04 UTC: the feed is stale or being replayed" });
  });

  it("summarizes the notes to their first paragraph", () => {
    expect(notesSummary("First  line\nsame paragraph.\n\nSecond.")).toBe("First line same paragraph.");
    expect(notesSummary("x".repeat(300), 10)).toBe("xxxxxxxxx…");
  });
});

describe("update banner", () => {
  it("shows a ready update and applies it on Restart to update", async () => {
    const f = fakeApi(withUpdate({ state: "ready", current: "1.2.3", latest: "1.3.0", notes: "Faster.\n\nMore.", total: 100, bytes: 100 }));
    const { root } = await mount(f.api);
    const banner = root.querySelector('[data-key="update:ready"]')!;
    expect(banner.textContent).toContain("Update ready");
    expect(banner.textContent).toContain("Hermes Desktop 1.3.0");
    expect(banner.textContent).toContain("Faster.");
    click(root, '[data-action="update-apply"]');
    await flush();
    expect(f.api.ApplyUpdate).toHaveBeenCalledTimes(1);
  });

  it("skips the version it shows", async () => {
    const f = fakeApi(withUpdate({ state: "ready", current: "1.2.3", latest: "1.3.0" }));
    const { root } = await mount(f.api);
    click(root, '[data-action="update-skip"]');
    await flush();
    expect(f.api.SkipVersion).toHaveBeenCalledWith("1.3.0");
  });

  it("shows the download's progress bar", async () => {
    const f = fakeApi(withUpdate({ state: "downloading", current: "1.2.3", latest: "1.3.0", bytes: 30, total: 120 }));
    const { root } = await mount(f.api);
    const bar = root.querySelector('[role="progressbar"]')!;
    expect(bar.getAttribute("aria-valuenow")).toBe("25");
    expect((bar.firstElementChild as HTMLElement).getAttribute("style")).toBe("width: 25%");
    expect(root.textContent).toContain("Downloading Hermes Desktop 1.3.0");
    f.emitStatus(withUpdate({ state: "downloading", current: "1.2.3", latest: "1.3.0", bytes: 60, total: 120 }));
    await flush();
    expect(root.querySelector('[role="progressbar"]')!.getAttribute("aria-valuenow")).toBe("50");
  });

  it("says how much the update downloads: a patch and the full size, or the full size", async () => {
    const mb = 1024 * 1024;
    expect(downloadSize({ size: 1.2 * mb, full: 24.1 * mb, patch: true })).toBe("1.2 MB patch (full download 24.1 MB)");
    expect(downloadSize({ size: 24.1 * mb, full: 24.1 * mb })).toBe("24.1 MB download");
    expect(downloadSize(undefined)).toBeNull();
    const f = fakeApi(withUpdate({ state: "available", current: "1.2.3", latest: "1.3.0", download: { size: 1.2 * mb, full: 24.1 * mb, patch: true } }));
    const { root } = await mount(f.api);
    expect(root.querySelector('[data-key="update:available"]')!.textContent).toContain("Hermes Desktop 1.3.0 is available. 1.2 MB patch (full download 24.1 MB).");
  });

  it("tells a package-managed copy the command, with no Restart to update", async () => {
    const f = fakeApi(withUpdate({ state: "available", current: "1.2.3", latest: "1.3.0", command: "sudo apt install ./hermes-desktop_1.3.0_webkit41_amd64.deb" }));
    const { root } = await mount(f.api);
    expect(root.querySelector(".update-command")!.textContent).toBe("sudo apt install ./hermes-desktop_1.3.0_webkit41_amd64.deb");
    expect(root.querySelector('[data-action="update-apply"]')).toBeNull();
  });

  it("shows a failure with Check now, and an apply error inline", async () => {
    const f = fakeApi(withUpdate({ state: "failed", current: "1.2.3", latest: "1.3.0", error: "the download's sha256 is x, the manifest says y" }));
    const { root } = await mount(f.api);
    expect(root.querySelector('[data-key="update:failed"]')!.textContent).toContain("sha256");
    click(root, '.banner [data-action="update-check"]');
    await flush();
    expect(f.api.CheckForUpdate).toHaveBeenCalledTimes(1);
  });

  it("says a stale or replayed feed was refused, not that an update failed", async () => {
    const error = "the update feed's signature expired on 2026-01-02 03:04 UTC: the feed is stale or being replayed";
    const f = fakeApi(withUpdate({ state: "failed", current: "1.2.3", latest: "1.3.0", reason: "stale", error }));
    const { root } = await mount(f.api);
    const text = root.querySelector('[data-key="update:failed"]')!.textContent;
    expect(text).toContain("The update feed was refused. The update feed's signature expired on 2026-01-02 03:04 UTC: the feed is stale or being replayed");
    expect(text).not.toContain("The update to 1.3.0 failed");
    expect(root.querySelector(".update-row")!.textContent).toContain("Update feed refused");
  });

  it("keeps the window quiet when there is nothing to say, with Check now in the sidebar", async () => {
    const f = fakeApi(withUpdate({ state: "idle", current: "1.2.3", latest: "1.2.3", checked_at: "2024-05-01T10:00:00Z" }));
    const { root } = await mount(f.api);
    expect(root.querySelector('[data-key^="update:"]')).toBeNull();
    expect(root.querySelector(".update-row")!.textContent).toContain("Up to date");
    click(root, '.update-row [data-action="update-check"]');
    await flush();
    expect(f.api.CheckForUpdate).toHaveBeenCalledTimes(1);
    expect(f.api.Status).toHaveBeenCalledTimes(2); // refreshed after the check
  });

  it("shows an apply that failed inline under the banner", async () => {
    const f = fakeApi(withUpdate({ state: "ready", current: "1.2.3", latest: "1.3.0" }));
    f.api.ApplyUpdate.mockRejectedValueOnce("a backend is restarting");
    const { root } = await mount(f.api);
    click(root, '[data-action="update-apply"]');
    await flush();
    expect(root.querySelector('[data-key="update:ready"]')!.textContent).toContain("A backend is restarting");
  });
});

describe("the Settings page's notes on the update settings", () => {
  const base: UpdateInfo = { state: "idle", current: "1.2.3" };
  it("say nothing while the saved values are the ones in use", () => {
    expect(feedNote(undefined)).toBeNull();
    expect(feedNote(base)).toBeNull();
    expect(feedNote({ ...base, feed: "https://example.com/stable.json" })).toBeNull();
    // Off for lack of a feed: the field's help says so already.
    expect(feedNote({ ...base, state: "off", error: "updates are off: no update feed is set" })).toBeNull();
    expect(automaticNote({ ...base, automatic: true })).toBeNull();
  });
  it("name the flag or variable that wins, and its value", () => {
    expect(feedNote({ ...base, feed: "https://f.example.com/beta.json", feed_from: "--update-feed" })).toBe(
      "In use: https://f.example.com/beta.json, set by --update-feed, which wins over this setting.",
    );
    expect(feedNote({ ...base, state: "off", feed_from: "--update-feed" })).toBe("Updates are off: --update-feed is set empty, which wins over this setting.");
    expect(automaticNote({ ...base, automatic_from: "--update-automatically" })).toBe("Off: set by --update-automatically, which wins over this setting.");
    expect(automaticNote({ ...base, automatic: true, automatic_from: "HERMES_DESKTOP_UPDATE_AUTOMATICALLY" })).toBe(
      "On: set by HERMES_DESKTOP_UPDATE_AUTOMATICALLY, which wins over this setting.",
    );
  });
  it("say why updates stay off although a feed is set", () => {
    const u: UpdateInfo = { ...base, state: "off", feed: "https://example.com/stable.json", error: "updates are off: this build of Hermes Desktop does not update itself" };
    expect(feedNote(u)).toBe("Updates are off: this build of Hermes Desktop does not update itself");
    // Said before any feed is typed, when the build is why.
    expect(feedNote({ ...u, feed: undefined, build_off: true })).toBe("Updates are off: this build of Hermes Desktop does not update itself");
    expect(feedNote({ ...u, feed: undefined, error: "updates are off: no update feed is set" })).toBeNull();
  });
});
