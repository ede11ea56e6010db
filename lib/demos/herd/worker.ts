/**
 * A Web Worker of Demo 1: computes the points the page sends it, one at a time, with
 * `simulatePoint` from lib/herd/simulator.ts, the module `npm run herd` runs (bundled by esbuild).
 * The page terminates it to cancel a run.
 */
import { simulatePoint } from "../../herd/simulator.ts";
import type { WorkerReply, WorkerRequest } from "./protocol.ts";

// The worker's global scope, typed for what is used here (the project's types are Node's and the DOM's).
const scope = globalThis as unknown as {
  onmessage: ((event: { data: WorkerRequest }) => void) | null;
  postMessage(message: WorkerReply): void;
};

scope.onmessage = (event) => {
  const { id, point } = event.data;
  const started = performance.now();
  try {
    const result = simulatePoint(point);
    scope.postMessage({ id, point: result, busyMs: performance.now() - started });
  } catch (error) {
    scope.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
  }
};
