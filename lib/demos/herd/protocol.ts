/** The messages between Demo 1's page and its Web Workers. */
import type { PointResult, PointSpec } from "../../herd/simulator.ts";

/** One point to compute; `id` is its place in the run's list. */
export interface WorkerRequest {
  id: number;
  point: PointSpec;
}

/** The point's result and how long the worker computed, or what went wrong. */
export type WorkerReply =
  | { id: number; point: PointResult; busyMs: number }
  | { id: number; error: string };
