/** A worker thread of `simulateManyParallel`: takes points from the shared counter until none are left. */

import { parentPort, workerData } from "node:worker_threads";
import type { WorkerInput, WorkerOutput } from "./parallel.ts";
import { simulatePoint } from "./simulator.ts";

const { points, counter } = workerData as WorkerInput;
const next = new Int32Array(counter);
for (let i = Atomics.add(next, 0, 1); i < points.length; i = Atomics.add(next, 0, 1)) {
  const message: WorkerOutput = { index: i, point: simulatePoint(points[i]!) };
  parentPort?.postMessage(message);
}
