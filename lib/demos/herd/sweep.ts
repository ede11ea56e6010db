/// <reference lib="dom" />
/**
 * Demo 1's sweep in the browser: every (strategy, clients) point of the sweep, shared out among Web
 * Workers as `npm run herd` shares them out among threads (lib/herd/parallel.ts): biggest first, the
 * next point to whichever worker is free. Every point has its own seed (`pointSeed`), so the rows
 * are the same whichever worker computes which point. `cancel()` terminates the workers at once:
 * a cancelled run never resolves with rows. The workers of a finished run go back to the pool, so
 * the next run starts with workers whose code the engine has already compiled and optimised.
 */
import {
  type PointResult,
  type PointSpec,
  pointSpec,
  type SweepSpec,
} from "../../herd/simulator.ts";
import type { WorkerReply, WorkerRequest } from "./protocol.ts";

export interface SweepResult {
  /** In the CLI's order: by strategy, then by client count as given. */
  rows: PointResult[];
  /** From the start (workers created) to the last point, ms. */
  elapsedMs: number;
  /** The workers' time computing, summed, ms. */
  busyMs: number;
  workers: number;
}

export interface SweepRun {
  /** Resolves with the rows, or with undefined if the run was cancelled; rejects if a worker failed. */
  result: Promise<SweepResult | undefined>;
  cancel(): void;
}

/** Workers kept between runs: idle ones are reused, busy ones of a cancelled run are terminated. */
export class WorkerPool {
  readonly url: string;
  #idle: Worker[] = [];

  constructor(url: string) {
    this.url = url;
  }

  /** `count` workers: idle ones first, new ones for the rest. */
  take(count: number): Worker[] {
    const workers = this.#idle.splice(0, count);
    while (workers.length < count) workers.push(new Worker(this.url, { type: "module" }));
    return workers;
  }

  /** Workers that finished their work, for the next run. */
  give(workers: readonly Worker[]): void {
    for (const w of workers) {
      w.onmessage = null;
      w.onerror = null;
    }
    this.#idle.push(...workers);
  }
}

export interface SweepOptions {
  pool: WorkerPool;
  workers: number;
  /** After each point: how many are done of how many. */
  onPoint?: (done: number, total: number) => void;
}

export function runSweep(spec: SweepSpec, options: SweepOptions): SweepRun {
  const points: PointSpec[] = [];
  for (const strategy of spec.strategies)
    for (const clients of spec.clients) points.push(pointSpec(spec, strategy, clients));
  // Biggest first (work grows with the client count), so no worker is left with a big one at the end.
  const order = points.map((_, i) => i).sort((a, b) => points[b]!.clients - points[a]!.clients);
  const results: (PointResult | undefined)[] = new Array<PointResult | undefined>(points.length);
  const count = Math.max(1, Math.min(options.workers, points.length));
  const workers = options.pool.take(count);
  let next = 0;
  let done = 0;
  let busyMs = 0;
  let settled = false;
  const started = performance.now();

  let resolve!: (r: SweepResult | undefined) => void;
  let reject!: (e: Error) => void;
  const result = new Promise<SweepResult | undefined>((res, rej) => {
    resolve = res;
    reject = rej;
  });

  /** Ends the run: finished workers go back to the pool; a cancelled or failed run's are terminated. */
  const stop = (finishedCleanly: boolean): void => {
    settled = true;
    if (finishedCleanly) options.pool.give(workers);
    else for (const w of workers) w.terminate();
  };

  const feed = (worker: Worker): void => {
    if (next >= order.length) return;
    const id = order[next++]!;
    const request: WorkerRequest = { id, point: points[id]! };
    worker.postMessage(request);
  };

  for (const worker of workers) {
    worker.onmessage = (event: MessageEvent<WorkerReply>) => {
      if (settled) return;
      const reply = event.data;
      if ("error" in reply) {
        stop(false);
        reject(new Error(reply.error));
        return;
      }
      results[reply.id] = reply.point;
      busyMs += reply.busyMs;
      done++;
      options.onPoint?.(done, points.length);
      if (done === points.length) {
        stop(true);
        resolve({
          rows: results as PointResult[],
          elapsedMs: performance.now() - started,
          busyMs,
          workers: count,
        });
      } else feed(worker);
    };
    worker.onerror = (event: ErrorEvent) => {
      if (settled) return;
      stop(false);
      reject(new Error(event.message || "a worker failed to start"));
    };
    feed(worker);
  }

  return {
    result,
    cancel() {
      if (settled) return;
      stop(false);
      resolve(undefined);
    },
  };
}
