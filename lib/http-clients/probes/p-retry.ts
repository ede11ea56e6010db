// p-retry retries any function: 10 retries, 1 s doubling, no jitter by default (p-retry index.js).
// It knows nothing of HTTP: it retries whatever the function throws (except a non-network TypeError).

import pRetry from "p-retry";
import { t } from "../../core/i18n.ts";
import { FETCH_WRAPPER_CONFIG, fetchDefaultTimeout, fetchOrThrow, type Probe } from "../probe.ts";

/** Shortened from the default 1000 ms so eleven attempts take about 2 s instead of 17 min. */
export const P_RETRY_MIN_TIMEOUT = 2;

export const pRetryProbe: Probe = {
  name: "p-retry",
  packages: ["p-retry"],
  config: [
    FETCH_WRAPPER_CONFIG,
    t("minTimeout: {value} (default {ms} ms): the first backoff, shortened", {
      value: P_RETRY_MIN_TIMEOUT,
      ms: "1000",
    }),
  ],
  timeoutOption: t("signal: AbortSignal.timeout(ms) on each fetch"),
  defaultTimeout: fetchDefaultTimeout,
  safe: t(
    "it retries whatever your function throws: throw `AbortError` for a POST without a key; `randomize: true` multiplies each wait by 1-2",
  ),
  async send(req) {
    await pRetry(() => fetchOrThrow(req), { minTimeout: P_RETRY_MIN_TIMEOUT, signal: req.signal });
  },
};
