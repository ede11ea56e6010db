// ky retries by default: limit 2, no POST, 408/413/429/500/502/503/504, 0.3 s doubling, honours
// Retry-After on 413/429/503; timeouts are not retried (ky distribution/utils/normalize.js).

import ky from "ky";
import { t } from "../../core/i18n.ts";
import { duration, fromSource, type Probe } from "../probe.ts";

export const kyProbe: Probe = {
  name: "ky",
  packages: ["ky"],
  config: [t("none: ky(url, { method, json, headers }) with its default retry")],
  timeoutOption: "timeout: ms",
  safe: t(
    "POST is left out of `retry.methods` by default: add it only with a key in `headers`; `retry.jitter: true` for full jitter; set `retry.maxRetryAfter`",
  ),
  retryAfterNote: () =>
    fromSource(
      "ky",
      "distribution/utils/normalize.js",
      /maxRetryAfter: (Number\.POSITIVE_INFINITY)/,
      () =>
        t("Retry-After (on 413, 429, 503) is capped by retry.maxRetryAfter, Infinity by default"),
    ),
  defaultTimeout: () =>
    fromSource("ky", "distribution/core/Ky.js", /timeout: options\.timeout \?\? ([\d_]+)/, (m) =>
      t("{time} per attempt", { time: duration(Number(m[1]!.replaceAll("_", ""))) }),
    ),
  async send(req) {
    const res = await ky(req.base + req.path, {
      method: req.method,
      headers: { ...req.headers },
      ...(req.body === undefined ? {} : { json: req.body }),
      ...(req.timeoutMs === undefined ? {} : { timeout: req.timeoutMs }),
      signal: req.signal,
    });
    await res.arrayBuffer();
  },
};
