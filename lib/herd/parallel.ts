/**
 * The sweep on several cores. Every (strategy, clients) point has its own seed (see `pointSeed`), so
 * points can be computed in any order, on any thread, and the rows come out identical to
 * `simulateMany`'s. The main thread and `threads - 1` workers take points from a shared counter,
 * biggest first, until none are left.
 */

import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import {
  type PointResult,
  type PointSpec,
  pointSpec,
  type SweepSpec,
  simulatePoint,
} from "./simulator.ts";
import type { WorkerInput, WorkerOutput } from "./worker.ts";

export interface ParallelOptions {
  /** Threads in all, the main one included. Default: the number of cores. */
  threads?: number;
  /** Whether the main thread computes points too. Default true; false leaves them all to workers. */
  useMainThread?: boolean;
}

/** The same rows as `simulateMany(spec)`, computed on up to `threads` threads. */
export async function simulateManyParallel(
  spec: SweepSpec,
  options: ParallelOptions = {},
): Promise<PointResult[]> {
  const points: PointSpec[] = [];
  for (const strategy of spec.strategies) {
    for (const clients of spec.clients) points.push(pointSpec(spec, strategy, clients));
  }
  // Biggest first (work grows with the client count), so no thread is left with a big one at the end.
  const order = points.map((_, i) => i).sort((a, b) => points[b]!.clients - points[a]!.clients);
  const queue = order.map((i) => points[i]!);
  const results: (PointResult | undefined)[] = new Array<PointResult | undefined>(queue.length);

  const threads = Math.max(1, Math.min(options.threads ?? availableParallelism(), queue.length));
  const counter = new SharedArrayBuffer(4);
  const next = new Int32Array(counter);

  const useMainThread = options.useMainThread ?? true;
  const workers: StartedWorker[] = [];
  for (let w = useMainThread ? 1 : 0; w < threads; w++)
    workers.push(startWorker({ points: queue, counter }, results));

  if (useMainThread) {
    for (let i = Atomics.add(next, 0, 1); i < queue.length; i = Atomics.add(next, 0, 1)) {
      results[i] = simulatePoint(queue[i]!);
    }
    // If the main thread did everything (a small sweep, workers still starting), stop the workers.
    if (results.every((r) => r !== undefined)) for (const w of workers) void w.worker?.terminate();
  }
  await Promise.all(workers.map((w) => w.finished));

  // A point taken by a worker that failed is done here instead.
  for (let i = 0; i < queue.length; i++) results[i] ??= simulatePoint(queue[i]!);

  const rows: PointResult[] = new Array<PointResult>(points.length);
  order.forEach((pointIndex, i) => {
    rows[pointIndex] = results[i]!;
  });
  return rows;
}

interface StartedWorker {
  worker: Worker | undefined;
  /** Settles when the worker has stopped; never rejects (a failed worker's points are redone). */
  finished: Promise<void>;
}

function startWorker(input: WorkerInput, results: (PointResult | undefined)[]): StartedWorker {
  let worker: Worker;
  try {
    worker = new Worker(new URL("./worker.ts", import.meta.url), { workerData: input });
  } catch {
    return { worker: undefined, finished: Promise.resolve() };
  }
  const finished = new Promise<void>((resolve) => {
    worker.on("message", (message: WorkerOutput) => {
      results[message.index] = message.point;
    });
    worker.on("error", () => resolve());
    worker.on("exit", () => resolve());
  });
  return { worker, finished };
}
