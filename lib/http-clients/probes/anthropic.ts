// The Anthropic SDK (Stainless-generated): 2 retries on 408/409/429/>=500 and connection errors,
// whatever the method; 0.5 s doubling with up to 25 % jitter down; Retry-After with no cap.

import Anthropic from "@anthropic-ai/sdk";
import { t } from "../../core/i18n.ts";
import { duration, fromSource, type Probe } from "../probe.ts";
import { stainlessSend } from "./stainless.ts";

export const anthropicProbe: Probe = {
  name: "anthropic",
  packages: ["@anthropic-ai/sdk"],
  config: [
    t(
      "new Anthropic({ apiKey: dummy, baseURL: the run's URL }); client.post/get(path) for the requests",
    ),
  ],
  timeoutOption: t("request option { timeout: ms }"),
  safe: t(
    'it retries POST twice with no key of its own: pass `headers: { "Idempotency-Key": key }`, one key per logical call, where the API honours it, or `maxRetries: 0` and retry in one place',
  ),
  retryAfterNote: () =>
    fromSource(
      "@anthropic-ai/sdk",
      "client.js",
      /timeoutMillis > 0 && timeoutMillis <= (2 \*\* 31 - 1)/,
      () => t("any positive Retry-After up to 2^31-1 ms (about 24.8 days) is waited for"),
    ),
  defaultTimeout: () => ({
    text: duration(Anthropic.DEFAULT_TIMEOUT),
    source: t("read at run time: {name}", { name: "Anthropic.DEFAULT_TIMEOUT" }),
  }),
  send: (req) => stainlessSend(new Anthropic({ apiKey: "sk-ant-dummy", baseURL: req.base }), req),
};
