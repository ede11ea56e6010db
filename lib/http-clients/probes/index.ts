// The probes, in the order the lesson prints them: no retry, the HTTP clients, the generic retry
// wrappers, the LLM SDKs, and the SDK of an API that honours Idempotency-Key.
import type { Probe } from "../probe.ts";
import { anthropicProbe } from "./anthropic.ts";
import { axiosProbe } from "./axios.ts";
import { cockatielProbe } from "./cockatiel.ts";
import { exponentialBackoffProbe } from "./exponential-backoff.ts";
import { fetchProbe } from "./fetch.ts";
import { gotProbe } from "./got.ts";
import { kyProbe } from "./ky.ts";
import { openaiProbe } from "./openai.ts";
import { pRetryProbe } from "./p-retry.ts";
import { stripeProbe } from "./stripe.ts";
import { undiciProbe } from "./undici.ts";

export const PROBES: readonly Probe[] = [
  fetchProbe,
  undiciProbe,
  gotProbe,
  kyProbe,
  axiosProbe,
  pRetryProbe,
  exponentialBackoffProbe,
  cockatielProbe,
  openaiProbe,
  anthropicProbe,
  stripeProbe,
];

/** Finds a probe by its name or one of its package names ("anthropic" or "@anthropic-ai/sdk"). */
export function findProbe(query: string): Probe | undefined {
  const q = query.trim().toLowerCase();
  return PROBES.find((p) => p.name === q || p.packages.includes(q));
}
