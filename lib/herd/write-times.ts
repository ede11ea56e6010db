/**
 * When the write calls reach the server: the data behind the herd's histogram, one list of arrival
 * times per strategy at one client count, over a few runs. The terminal chart (`writeTimeHistogram`)
 * and the SVG (`writeHerdSvgs`) draw the same object, so they show the same thing.
 */
import { niceStep } from "../charts/svg.ts";
import type { BackoffParams } from "../client/backoff.ts";
import type { SweepRow, TimeSeries } from "./series.ts";
import {
  type HerdStrategy,
  type LatencyParams,
  type PointSpec,
  simulatePoint,
} from "./simulator.ts";

export interface HerdWriteTimes {
  /** The client count the times come from. */
  clients: number;
  /** How many runs they add up. */
  runs: number;
  /** The time axis ends here, ms. */
  untilMs: number;
  /** Columns of the histogram over [0, untilMs). */
  buckets: number;
  /** One per strategy, in the order asked for. */
  series: TimeSeries[];
}

export interface WriteTimesSpec {
  strategies: readonly HerdStrategy[];
  clients: number;
  /** Runs per strategy (a handful is enough for a picture). */
  runs: number;
  seed: number;
  /** The sweep's rows: the axis ends at a round number past full jitter's completion at `clients`. */
  rows: readonly SweepRow[];
  /** Default 50. */
  buckets?: number;
  /** Where the time axis ends, ms; default a round number past full jitter's completion. */
  untilMs?: number;
  /** Backoff base and cap; default the original's. */
  params?: BackoffParams;
  /** One-way latency; default the original's. */
  latency?: LatencyParams;
}

/** Simulates the runs with every write time recorded, and picks the time axis. */
export function herdWriteTimes(spec: WriteTimesSpec): HerdWriteTimes {
  const series = spec.strategies.map((strategy) => {
    const point: PointSpec = {
      strategy,
      clients: spec.clients,
      runs: spec.runs,
      seed: spec.seed,
      recordWriteTimes: true,
    };
    if (spec.params !== undefined) point.params = spec.params;
    if (spec.latency !== undefined) point.latency = spec.latency;
    return { name: strategy, timesMs: simulatePoint(point).writeTimesMs ?? [] };
  });
  const atClients = spec.rows.filter((r) => r.clients === spec.clients);
  const reference =
    atClients.find((r) => r.strategy === "full")?.completionMs ??
    Math.min(...atClients.map((r) => r.completionMs));
  return {
    clients: spec.clients,
    runs: spec.runs,
    // A round number at or above it: 1, 2 or 5 times a power of ten.
    untilMs:
      spec.untilMs ?? niceStep(Math.max(100, Number.isFinite(reference) ? reference : 100), 1),
    buckets: spec.buckets ?? 50,
    series,
  };
}
