/**
 * What the benchmarked server's process (server-entry.ts) and the bench (server.ts) tell each other:
 * the config it starts with and the messages over IPC. Both sides import it from here, so that
 * neither imports the other.
 */
import type { VariantName } from "../tracker/variant.ts";

/** What the child serves. */
export type BenchServerConfig =
  | { kind: "bare" }
  | { kind: "tracker"; variant: VariantName; db: string; synchronous: "NORMAL" | "FULL" }
  | { kind: "postgres-tracker"; variant: VariantName; url: string };

export type ToBenchServer =
  | { type: "count" }
  | { type: "cpu" }
  | { type: "statements" }
  | { type: "close" };

export type FromBenchServer =
  | { type: "listening"; port: number; journalMode?: string; synchronous?: string }
  | { type: "count"; reports: number }
  | { type: "cpu"; micros: number }
  | { type: "statements"; roundTrips: number; commits: number }
  | { type: "closed" };
