// Node's own fetch (undici inside Node): no retry layer at all.
import { t } from "../../core/i18n.ts";
import { fetchDefaultTimeout, fetchOrThrow, type Probe } from "../probe.ts";

export const fetchProbe: Probe = {
  name: "fetch",
  packages: [],
  config: [t("none: Node's global fetch as it is")],
  timeoutOption: t("signal: AbortSignal.timeout(ms) (fetch has no timeout option)"),
  defaultTimeout: fetchDefaultTimeout,
  safe: t(
    "it never retries; a retry loop you write needs one Idempotency-Key per logical call, reused, and jittered backoff",
  ),
  async send(req) {
    await fetchOrThrow(req);
  },
};
