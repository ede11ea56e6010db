/**
 * The retry loop every layer in lesson 03 runs: make an attempt, ask the layer's policy whether to
 * go again and after how long, sleep, repeat. A policy is just the `decide` function, so an SDK, a
 * harness, Codex's two layers and a budgeted AWS-style client all share this one loop and differ
 * only in what they decide.
 *
 * Waits are given in real milliseconds (what the real client would sleep) and slept scaled by
 * `timeScale`, so a lesson can play 8 s of backoff in 80 ms and still print the real values.
 */
import { sleep } from "../core/clock.ts";

/**
 * After an attempt: stop, or wait `delayMs` (real, unscaled) and go again. `why` is said to a person;
 * `honoured` marks a wait the server asked for (Retry-After, retry-after-ms).
 */
export type Verdict =
  | { retry: false; why: string }
  | { retry: true; delayMs: number; why: string; honoured?: boolean };

export interface LoopOptions<T> {
  /** Makes attempt `n` (1 for the first). */
  attempt: (n: number) => Promise<T>;
  /** Looks at attempt `n`'s result and decides. */
  decide: (result: T, n: number) => Verdict;
  /** Real waits are slept multiplied by this (default 1). */
  timeScale?: number;
  /** Called before each wait. */
  onWait?: (n: number, verdict: Extract<Verdict, { retry: true }>) => void;
}

export interface LoopResult<T> {
  /** Every attempt's result, in order. */
  results: T[];
  /** The last attempt's result. */
  final: T;
  /** The real (unscaled) waits between attempts. */
  waitsMs: number[];
  /** Why the loop stopped (the last verdict's reason). */
  why: string;
}

/** Runs attempts until the policy says stop. */
export async function retryLoop<T>(options: LoopOptions<T>): Promise<LoopResult<T>> {
  const scale = options.timeScale ?? 1;
  const results: T[] = [];
  const waitsMs: number[] = [];
  for (let n = 1; ; n++) {
    const result = await options.attempt(n);
    results.push(result);
    const verdict = options.decide(result, n);
    if (!verdict.retry) return { results, final: result, waitsMs, why: verdict.why };
    waitsMs.push(verdict.delayMs);
    options.onWait?.(n, verdict);
    if (verdict.delayMs > 0) await sleep(verdict.delayMs * scale);
  }
}
