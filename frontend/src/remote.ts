// How a backend on another host is shown: where it runs, its connection in
// words, the latency of its heartbeat. Pure; the card (views/backends.ts)
// and its tests use them.

import { formatSpan, parseTime } from "./format";
import type { BackendStatus } from "./types";

type RemoteStatus = NonNullable<BackendStatus["remote"]>;

/** Where a backend runs, as its card's head says it: "on me@build-box". */
export function hostLabel(host: string): string {
  return `on ${host}`;
}

/**
 * A connection's state as the card says it. While reconnecting, until is
 * when the next attempt starts (ms since the epoch), and the text reads
 * prefix + the time left + suffix, counted down by the page's clock
 * (clock.ts countdown), then done once the moment has passed.
 */
export interface ConnectionWords {
  text: string;
  tone: "ok" | "busy" | "bad" | "idle";
  /** The full words, error included, for the tooltip. */
  title: string;
  countdown?: { until: number; prefix: string; suffix: string; done: string };
}

/** The connection of a remote backend in words (Go: model.RemoteStatus). */
export function connectionWords(r: RemoteStatus | undefined, now: number): ConnectionWords {
  if (!r) return { text: "Not connected", tone: "idle", title: "No connection to its host is open" };
  const error = r.error ? ` — ${r.error}` : "";
  switch (r.connection) {
    case "connected":
      return { text: "Connected", tone: "ok", title: "Connected" };
    case "connecting":
      return { text: "Connecting…", tone: "busy", title: `Connecting…${error}` };
    case "failed": {
      const text = r.error ? `Failed: ${r.error}` : "Failed";
      return { text, tone: "bad", title: text };
    }
    case "reconnecting": {
      const attempt = r.attempt ? `attempt ${r.attempt}` : "";
      const done = `Reconnecting${attempt ? ` (${attempt})` : ""}${error}`;
      const until = parseTime(r.next_attempt);
      if (!(until > now)) return { text: done, tone: "busy", title: done };
      const prefix = `Reconnecting (${attempt ? `${attempt}, ` : ""}next in `;
      const suffix = `)${error}`;
      const text = prefix + countdownText(until - now) + suffix;
      return { text, tone: "busy", title: text, countdown: { until, prefix, suffix, done } };
    }
    default: {
      const word = r.connection ? r.connection.charAt(0).toUpperCase() + r.connection.slice(1) : "Unknown";
      return { text: word + error, tone: "idle", title: word + error };
    }
  }
}

/**
 * The time left before a moment, in whole seconds rounded up ("8 s",
 * "1 min 15 s"): a countdown reads "1 s" until it is due, never "0 s".
 */
export function countdownText(ms: number): string {
  return formatSpan(Math.max(1, Math.ceil(ms / 1000)) * 1000);
}

/**
 * How long until countdownText(ms) reads differently as ms shrinks: at the
 * next whole second. NaN once the moment has passed.
 */
export function countdownChangesIn(ms: number): number {
  if (!Number.isFinite(ms) || ms <= 0) return NaN;
  return ms % 1000 || 1000;
}

/** A heartbeat's round trip: "0.4 ms", "2.5 ms", "12 ms", "1.2 s"; "—" when none was measured. */
export function formatLatency(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms) || ms <= 0) return "—";
  if (ms < 10) return `${Math.round(ms * 10) / 10} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${Math.round(ms / 100) / 10} s`;
}

/** Who on its host can reach a remote backend, as its card says it. */
export interface AccessWords {
  text: string;
  tone: "ok" | "bad" | "idle";
  title: string;
}

/**
 * Who on the host can reach a remote backend (Go: model.RemoteStatus
 * isolation): only this user, when it runs in a network namespace of its
 * own; every account there otherwise, its port named, the reason in the
 * tooltip.
 */
export function accessWords(host: string, r: RemoteStatus | undefined): AccessWords {
  switch (r?.isolation) {
    case "netns":
      return {
        text: "Only you (isolated)",
        tone: "ok",
        title: `It runs in a network namespace of its own on ${host}: other accounts there cannot reach its port or its page's token`,
      };
    case "none": {
      const port = r.port ? `port ${r.port}` : "its port";
      const text = `Other accounts on ${host} can reach ${port}`;
      const why = r.isolation_reason ? ` Not isolated: ${r.isolation_reason}.` : "";
      return { text, tone: "bad", title: `${text}, and a dashboard's page hands its token to whoever asks.${why}` };
    }
    default:
      return { text: "—", tone: "idle", title: "Not known until the backend starts" };
  }
}
