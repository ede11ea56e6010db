// exponential-backoff retries any function: 10 attempts, 100 ms doubling, no jitter, no cap by
// default (exponential-backoff dist/options.js). It knows nothing of HTTP.

import { backOff } from "exponential-backoff";
import { t } from "../../core/i18n.ts";
import { FETCH_WRAPPER_CONFIG, fetchDefaultTimeout, fetchOrThrow, type Probe } from "../probe.ts";

/** Shortened from the default 100 ms so ten attempts take about 1 s instead of 51 s. */
export const EB_STARTING_DELAY = 2;

export const exponentialBackoffProbe: Probe = {
  name: "exponential-backoff",
  packages: ["exponential-backoff"],
  config: [
    FETCH_WRAPPER_CONFIG,
    t("startingDelay: {value} (default {ms} ms): the first backoff, shortened", {
      value: EB_STARTING_DELAY,
      ms: 100,
    }),
  ],
  timeoutOption: t("signal: AbortSignal.timeout(ms) on each fetch"),
  defaultTimeout: fetchDefaultTimeout,
  safe: t(
    'give a `retry(error)` that refuses a POST without a key; `jitter: "full"` (the default is none)',
  ),
  async send(req) {
    await backOff(() => fetchOrThrow(req), { startingDelay: EB_STARTING_DELAY });
  },
};
