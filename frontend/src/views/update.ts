import "./update.css";
import { h } from "../dom";
import type { AppState } from "../state";
import { sentence } from "../format";
import { bannerKind, downloadProgress, downloadSize, failedHeading, notesSummary, UPDATE_KEYS, updateLine, type UpdateInfo } from "../update";
import { banner, button, inlineError } from "../ui";

/** The update banner above every tab: available, downloading (with a
 *  progress bar), ready ("Restart to update"), installing, failed. */
export function updateBanner(s: AppState): HTMLElement | null {
  const u = s.status?.instance.update as UpdateInfo | undefined;
  const kind = bannerKind(u);
  const err = inlineError(s.errors.get(UPDATE_KEYS.error));
  if (!u || kind === "none") return err ? h("div.update-error", { "data-key": "update-error" }, err) : null;
  const version = u.latest ?? "";
  const key = `update:${kind}`;
  const notes = notesSummary(u.notes);
  const notesEl = notes ? h("div.update-notes", null, notes) : null;
  const skip = button("Skip this version", {
    action: "update-skip",
    size: "sm",
    variant: "ghost",
    busy: s.busy.has(UPDATE_KEYS.skip),
    attrs: { "data-version": version },
  });
  const apply = (label: string) =>
    button(label, {
      action: "update-apply",
      size: "sm",
      variant: "primary",
      icon: "restart",
      busy: s.busy.has(UPDATE_KEYS.apply),
      busyLabel: "Updating…",
      title: "Your backends keep running",
    });
  const check = button("Check now", { action: "update-check", size: "sm", busy: s.busy.has(UPDATE_KEYS.check), busyLabel: "Checking…" });
  switch (kind) {
    case "managed":
      return banner(
        "info",
        parts(
          h("strong", null, `Hermes Desktop ${version} is available. `),
          "Your package manager keeps this copy up to date: ",
          h("code.update-command", null, u.command ?? ""),
          notesEl,
          err,
        ),
        { key, actions: [skip] },
      );
    case "available": {
      const size = downloadSize(u.download);
      const sizeEl = size ? h("span.update-size", null, ` ${size}.`) : null;
      return banner("info", parts(h("strong", null, `Hermes Desktop ${version} is available.`), sizeEl, notesEl, err), { key, actions: [apply("Update now"), skip] });
    }
    case "downloading": {
      const p = downloadProgress(u);
      const text = p.percent === null ? p.text : `${p.percent}% · ${p.text}`;
      return banner(
        "info",
        parts(h("strong", null, `Downloading Hermes Desktop ${version}…`), progressBar(p.percent), h("div.update-progress-text", null, text), err),
        { key, actions: [skip] },
      );
    }
    case "ready":
      return banner(
        "ok",
        parts(h("strong", null, "Update ready: "), `Hermes Desktop ${version}. Restart to update — your backends keep running.`, notesEl, err),
        { key, actions: [apply("Restart to update"), skip] },
      );
    case "applying":
      return banner("info", parts(h("strong", null, `Installing Hermes Desktop ${version}…`), " The window reopens in the new version.", progressBar(null)), { key });
    case "failed":
      return banner(
        "error",
        parts(h("strong", null, failedHeading(u)), sentence(u.error ?? ""), err),
        { key, actions: [check] },
      );
  }
  return null;
}

/** A banner body without the parts that are absent. */
function parts(...xs: (Node | string | null)[]): (Node | string)[] {
  return xs.filter((x): x is Node | string => x !== null);
}

/** A progress bar; a null percent shows it full (the size is unknown, or
 *  the step has no measure). */
function progressBar(percent: number | null): HTMLElement {
  return h(
    "div.update-progress",
    { role: "progressbar", "aria-valuemin": 0, "aria-valuemax": 100, "aria-valuenow": percent },
    h("div.update-progress-bar", { style: `width: ${percent ?? 100}%` }),
  );
}

/** The sidebar's line about updates, with "Check now". */
export function updateRow(s: AppState, now: number): HTMLElement | null {
  const u = s.status?.instance.update as UpdateInfo | undefined;
  const line = updateLine(u, now);
  if (!u || !line) return null;
  const checking = s.busy.has(UPDATE_KEYS.check) || u.state === "checking";
  const probation = !!u.probation_until && Date.parse(u.probation_until) > now;
  const canCheck = !probation && u.state !== "off" && u.state !== "applying" && u.state !== "downloading";
  return h(
    "div.instance-row.update-row",
    { title: line.title || null },
    h("span", null, line.text),
    canCheck ? h("button.link-btn", { type: "button", "data-action": "update-check", disabled: checking }, checking ? "Checking…" : "Check now") : null,
  );
}
