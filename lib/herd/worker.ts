/** A worker thread of `simulateManyParallel`: takes points from the shared counter until none are left. */

import { parentPort, workerData } from "node:worker_threads";
import { type PointResult, type PointSpec, simulatePoint } from "./simulator.ts";

/** What the main thread sends each worker. */
export interface WorkerInput {
  points: PointSpec[];
  /** An Int32Array over it: [0] is the index of the next point to take. */
  counter: SharedArrayBuffer;
}

/** What a worker sends back, once per point. */
export interface WorkerOutput {
  index: number;
  point: PointResult;
}

const { points, counter } = workerData as WorkerInput;
const next = new Int32Array(counter);
for (let i = Atomics.add(next, 0, 1); i < points.length; i = Atomics.add(next, 0, 1)) {
  const message: WorkerOutput = { index: i, point: simulatePoint(points[i]!) };
  parentPort?.postMessage(message);
}
