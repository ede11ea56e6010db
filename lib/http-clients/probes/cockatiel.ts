// cockatiel: a retry policy must be built; retry(handleAll, {}) is the minimal one. Its defaults
// (cockatiel dist/Policy.js `retry`): maxAttempts Infinity, ConstantBackoff(0): retry at once, for ever.

import { handleAll, retry } from "cockatiel";
import { t } from "../../core/i18n.ts";
import { FETCH_WRAPPER_CONFIG, fetchDefaultTimeout, fetchOrThrow, type Probe } from "../probe.ts";

export const cockatielProbe: Probe = {
  name: "cockatiel",
  packages: ["cockatiel"],
  config: [
    FETCH_WRAPPER_CONFIG,
    t("retry(handleAll, {}): a policy is needed to retry at all; no maxAttempts, no backoff given"),
  ],
  timeoutOption: t("signal: AbortSignal.timeout(ms) on each fetch"),
  defaultTimeout: fetchDefaultTimeout,
  safe: t(
    "always set `maxAttempts` and a `backoff` (new ExponentialBackoff() has decorrelated jitter); retry only errors a POST with a key survives",
  ),
  async send(req) {
    const policy = retry(handleAll, {});
    await policy.execute(() => fetchOrThrow(req), req.signal);
  },
};
