// undici's RetryAgent: retries are opt-in; wrapping an Agent in a RetryAgent is the minimal setup.
// Its defaults live in undici lib/handler/retry-handler.js (maxRetries 5, minTimeout 500 ms,
// timeoutFactor 2, maxTimeout 30 s, methods without POST/PATCH, statusCodes 500/502/503/504/429).

import { Agent, RetryAgent, request } from "undici";
import { t } from "../../core/i18n.ts";
import { duration, fromSource, type Probe } from "../probe.ts";

/** Shortened from the default 500 ms so six attempts take about 1.5 s instead of 15.5 s. */
export const UNDICI_MIN_TIMEOUT = 50;

export const undiciProbe: Probe = {
  name: "undici",
  packages: ["undici"],
  config: [
    t(
      "new RetryAgent(new Agent(), options): retries are opt-in (the minimal setup to retry at all)",
    ),
    t(
      "minTimeout: {value} (default {ms} ms): the first backoff, shortened; maxTimeout (the Retry-After cap) left at its default",
      { value: UNDICI_MIN_TIMEOUT, ms: 500 },
    ),
  ],
  timeoutOption: "new Agent({ headersTimeout: ms })",
  safe: t(
    "keep POST out of `methods` (the default) unless it carries a key the server honours; the backoff has no jitter: add it in a `retry` function",
  ),
  retryAfterNote: () =>
    fromSource(
      "undici",
      "lib/handler/retry-handler.js",
      /maxTimeout: maxTimeout \?\? (\d+) \* 1000/,
      (m) => t("Retry-After is capped at maxTimeout, {s} s by default", { s: m[1] }),
    ),
  defaultTimeout: () =>
    fromSource(
      "undici",
      "lib/dispatcher/client.js",
      /this\[kHeadersTimeout\] = headersTimeout != null \? headersTimeout : ([\de]+)/,
      (m) => t("{time} for headers", { time: duration(Number(m[1])) }),
    ),
  async send(req) {
    const agent = new Agent(req.timeoutMs === undefined ? {} : { headersTimeout: req.timeoutMs });
    const dispatcher = new RetryAgent(agent, { minTimeout: UNDICI_MIN_TIMEOUT });
    try {
      const headers: Record<string, string> = { ...req.headers };
      let body: string | undefined;
      if (req.body !== undefined) {
        body = JSON.stringify(req.body);
        headers["content-type"] = "application/json";
      }
      const res = await request(req.base + req.path, {
        method: req.method,
        headers,
        body,
        dispatcher,
        signal: req.signal,
      });
      await res.body.dump();
      if (res.statusCode >= 300) throw new Error(`HTTP ${res.statusCode}`);
    } finally {
      await agent.destroy();
    }
  },
};
