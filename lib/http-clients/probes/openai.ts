// The OpenAI SDK (Stainless-generated): 2 retries on 408/409/429/>=500 and connection errors,
// whatever the method; 0.5 s doubling with up to 25 % jitter down; Retry-After up to 60 s.

import OpenAI from "openai";
import { t } from "../../core/i18n.ts";
import { duration, fromSource, type Probe } from "../probe.ts";
import { stainlessSend } from "./stainless.ts";

export const openaiProbe: Probe = {
  name: "openai",
  packages: ["openai"],
  config: [
    t(
      "new OpenAI({ apiKey: dummy, baseURL: the run's URL }); client.post/get(path) for the requests",
    ),
  ],
  timeoutOption: t("request option { timeout: ms }"),
  safe: t(
    'it retries POST twice with no key of its own: pass `headers: { "Idempotency-Key": key }`, one key per logical call, where the API honours it, or `maxRetries: 0` and retry in one place',
  ),
  retryAfterNote: () =>
    fromSource("openai", "client.js", /timeoutMillis > (\d+) \* 1000\)/, (m) =>
      t("a Retry-After over {s} s is replaced by its own backoff", { s: m[1] }),
    ),
  defaultTimeout: () => ({
    text: duration(OpenAI.DEFAULT_TIMEOUT),
    source: t("read at run time: {name}", { name: "OpenAI.DEFAULT_TIMEOUT" }),
  }),
  send: (req) => stainlessSend(new OpenAI({ apiKey: "sk-dummy", baseURL: req.base }), req),
};
