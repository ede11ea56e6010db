// got retries by default: limit 2, GET/PUT/HEAD/DELETE/OPTIONS/TRACE/QUERY, a list of statuses and
// network errors, 1 s doubling plus up to 100 ms of noise (got dist/source/core/options.js and
// dist/source/core/calculate-retry-delay.js).

import got from "got";
import { t } from "../../core/i18n.ts";
import { fromSource, type Probe } from "../probe.ts";

export const gotProbe: Probe = {
  name: "got",
  packages: ["got"],
  config: [t("none: got(url, { method, json, headers }) with its default retry")],
  timeoutOption: "timeout: { request: ms }",
  safe: t(
    "POST is left out of `retry.methods` by default: add it only with a key in `headers`; set `retry.maxRetryAfter` so a long Retry-After fails fast",
  ),
  retryAfterNote: () =>
    fromSource(
      "got",
      "dist/source/core/index.js",
      /computedValue: (retryOptions\.maxRetryAfter \?\? options\.timeout\.request \?\? Infinity)/,
      () =>
        t(
          "Retry-After is capped by retry.maxRetryAfter, else the request timeout, else not at all; above the cap it gives up",
        ),
    ),
  defaultTimeout: () =>
    fromSource(
      "got",
      "dist/source/core/options.js",
      /timeout: \{\s*connect: (undefined),\s*lookup: undefined,\s*read: undefined,\s*request: undefined/,
      () => t("none (every timeout undefined)"),
    ),
  async send(req) {
    await got(req.base + req.path, {
      method: req.method,
      headers: { ...req.headers },
      ...(req.body === undefined ? {} : { json: req.body }),
      ...(req.timeoutMs === undefined ? {} : { timeout: { request: req.timeoutMs } }),
      signal: req.signal,
    });
  },
};
