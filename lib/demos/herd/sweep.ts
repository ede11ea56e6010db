/// <reference lib="dom" />
/**
 * Demo 1's sweep in the browser: every (strategy, clients) point of the sweep, shared out among Web
 * Workers as `npm run herd` shares them out among threads (lib/herd/parallel.ts): biggest first, the
 * next point to whichever worker is free. Every point has its own seed (`pointSeed`), so the rows
 * are the same whichever worker computes which point. `cancel()` terminates the workers at once:
 * a cancelled run never resolves with rows.
 */
import { pointSpec, type PointResult, type PointSpec, type SweepSpec } from "../../herd/simulator.ts";
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

export interface SweepOptions {
  workerUrl: string;
  workers: number;
  /** After each point: how many are done of how many. */
  onPoint?: (done: number, total: number) => void;
}

export function runSweep(spec: SweepSpec, options: SweepOptions): SweepRun {
  const points: PointSpec[] = [];
  for (const strategy of spec.strategies) for (const clients of spec.clients) points.push(pointSpec(spec, strategy, clients));
  // Biggest first (work grows with the client count), so no worker is left with a big one at the end.
  const order = points.map((_, i) => i).sort((a, b) => points[b]!.clients - points[a]!.clients);
  const results: (PointResult | undefined)[] = new Array<PointResult | undefined>(points.length);
  const count = Math.max(1, Math.min(options.workers, points.length));
  const workers: Worker[] = [];
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

  const stop = (): void => {
    settled = true;
    for (const w of workers) w.terminate();
  };

  const feed = (worker: Worker): void => {
    if (next >= order.length) return;
    const id = order[next++]!;
    const request: WorkerRequest = { id, point: points[id]! };
    worker.postMessage(request);
  };

  for (let i = 0; i < count; i++) {
    const worker = new Worker(options.workerUrl, { type: "module" });
    workers.push(worker);
    worker.onmessage = (event: MessageEvent<WorkerReply>) => {
      if (settled) return;
      const reply = event.data;
      if ("error" in reply) {
        stop();
        reject(new Error(reply.error));
        return;
      }
      results[reply.id] = reply.point;
      busyMs += reply.busyMs;
      done++;
      options.onPoint?.(done, points.length);
      if (done === points.length) {
        stop();
        resolve({ rows: results as PointResult[], elapsedMs: performance.now() - started, busyMs, workers: count });
      } else feed(worker);
    };
    worker.onerror = (event: ErrorEvent) => {
      if (settled) return;
      stop();
      reject(new Error(event.message || "a worker failed to start"));
    };
    feed(worker);
  }

  return {
    result,
    cancel() {
      if (settled) return;
      stop();
      resolve(undefined);
    },
  };
}
