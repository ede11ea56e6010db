// stripe-node, the SDK of an API whose server honours Idempotency-Key: it retries on a connection
// error, 409 or any 5xx, whatever the method, 2 times by default in its code (esm/stripe.esm.node.js,
// the build Node loads, and esm/platform/PlatformFunctions.js, `getDefaultMaxNetworkRetries`;
// CHANGELOG 17.0.0: "max retries: `1` -> `2`"), though its README still says 1; and every POST gets
// its own key, `stripe-node-retry-<uuid>`, made once per call and sent again on each retry (stripe
// esm/RequestSender.js, `_defaultIdempotencyKey` and `_shouldRetry`).

import Stripe from "stripe";
import { t } from "../../core/i18n.ts";
import { duration, fromSource, type Probe, type ProbeRequest, type Sourced } from "../probe.ts";

/**
 * stripe-node's default number of retries as its installed code states it (the Node build the lesson
 * runs, and the platform default it shares with the other builds) and as its README's configuration
 * table states it. In stripe 23.1.0 the code says 2 and the README 1.
 */
export function stripeDefaultRetries(): { node: Sourced; platform: Sourced; readme: Sourced } {
  return {
    node: fromSource(
      "stripe",
      "esm/stripe.esm.node.js",
      /validateInteger\('maxNetworkRetries', props\.maxNetworkRetries, (\d+)\)/,
      (m) => m[1]!,
    ),
    platform: fromSource(
      "stripe",
      "esm/platform/PlatformFunctions.js",
      /getDefaultMaxNetworkRetries\(\)\s*\{\s*return (\d+);/,
      (m) => m[1]!,
    ),
    readme: fromSource(
      "stripe",
      "README.md",
      /\|\s*`maxNetworkRetries`\s*\|\s*(\d+)\s*\|/,
      (m) => m[1]!,
    ),
  };
}

/** The client as the lesson builds it: Stripe's own host, port and protocol options, pointed at the run. */
export function stripeFor(base: string, timeoutMs?: number): { stripe: Stripe; prefix: string } {
  const url = new URL(base);
  const stripe = new Stripe("sk_test_dummy", {
    host: url.hostname,
    port: Number(url.port),
    protocol: "http",
    ...(timeoutMs === undefined ? {} : { timeout: timeoutMs }),
  });
  return { stripe, prefix: url.pathname.replace(/\/$/, "") };
}

/** Rejects when the lesson fires the signal (stripe-node takes no AbortSignal of its own). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}

export async function stripeSend(req: ProbeRequest): Promise<void> {
  const { stripe, prefix } = stripeFor(req.base, req.timeoutMs);
  const options = req.headers ? { additionalHeaders: { ...req.headers } } : {};
  const params = req.method === "POST" ? (req.body as Record<string, string>) : null;
  await untilAborted(
    stripe.rawRequest(
      req.method,
      prefix + req.path,
      params ?? undefined,
      options,
    ) as Promise<unknown>,
    req.signal,
  );
}

export const stripeProbe: Probe = {
  name: "stripe",
  packages: ["stripe"],
  config: [
    t(
      'new Stripe("sk_test_dummy", { host: "127.0.0.1", port, protocol: "http" }): Stripe\'s own options, pointed at the run',
    ),
    t(
      "stripe.rawRequest(method, path, params) for the requests (a v1 path: the body is form-encoded, as Stripe's API takes it)",
    ),
  ],
  timeoutOption: "new Stripe(key, { timeout: ms })",
  safe: t(
    "it keys every POST itself and keeps the key on its retries: safe against a server that honours keys, as Stripe's does; to retry a call yourself later, pass `{ idempotencyKey }` made once per logical operation",
  ),
  defaultTimeout: () =>
    fromSource("stripe", "esm/stripe.core.js", /const DEFAULT_TIMEOUT = (\d+);/, (m) =>
      t("{time} per attempt", { time: duration(Number(m[1])) }),
    ),
  send: stripeSend,
};
