// axios does not retry; axios-retry adds it. axiosRetry(instance) with no options is the minimal
// setup: 3 retries, no delay unless Retry-After, retryCondition isNetworkOrIdempotentRequestError
// (axios-retry dist/esm/index.js): any network error, whatever the method, or a 5xx/429 on an
// idempotent method.

import axios from "axios";
import axiosRetry from "axios-retry";
import { t } from "../../core/i18n.ts";
import type { Probe } from "../probe.ts";

export const axiosProbe: Probe = {
  name: "axios",
  packages: ["axios", "axios-retry"],
  config: [t("axiosRetry(axios.create()): retries are opt-in (the minimal setup to retry at all)")],
  timeoutOption: "timeout: ms",
  safe: t(
    "after a connection error it retries any method, POST too: send a key, or `retryCondition: axiosRetry.isIdempotentRequestError`; `retryDelay: axiosRetry.exponentialDelay` adds 0-20 % jitter",
  ),
  defaultTimeout: () => ({
    text: axios.defaults.timeout ? `${axios.defaults.timeout} ms` : t("none (0)"),
    source: t("read at run time: {name}", { name: "axios.defaults.timeout" }),
  }),
  async send(req) {
    const client = axios.create();
    axiosRetry(client);
    await client.request({
      url: req.base + req.path,
      method: req.method,
      headers: { ...req.headers },
      ...(req.body === undefined ? {} : { data: req.body }),
      ...(req.timeoutMs === undefined ? {} : { timeout: req.timeoutMs }),
      signal: req.signal,
    });
  },
};
