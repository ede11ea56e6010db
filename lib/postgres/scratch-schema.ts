/**
 * PostgreSQL for one run of a command (`npm run tracker -- --store postgres`, the chaos run, the
 * bench): the learner's server if `DATABASE_URL` is set, otherwise the workbook's own (server.ts),
 * and in it a fresh schema, dropped at the end, so that nothing of the run stays behind on either.
 */
import { createSchema, redact } from "./schema.ts";
import { startPostgres } from "./server.ts";

/** The stores a command can run on (`--store`). */
export const STORE_NAMES = ["sqlite", "postgres"] as const;
export type StoreName = (typeof STORE_NAMES)[number];

export function isStoreName(s: string): s is StoreName {
  return (STORE_NAMES as readonly string[]).includes(s);
}

export interface ScratchSchema {
  /** A URL whose connections work in the run's schema. */
  readonly url: string;
  /** Where it is, for a message: the server (password hidden) and the schema. */
  readonly where: string;
  /** Whose server it is: "DATABASE_URL" or "embedded PostgreSQL". */
  readonly server: string;
  /** How long the server took to start, ms (0 for the learner's own). */
  readonly startMs: number;
  /** Drops the schema and stops the server if the workbook started it. Safe to call twice. */
  close(): Promise<void>;
}

/**
 * Starts (or reaches) PostgreSQL and creates a schema named after `prefix` in it. Rejects with
 * PostgresUnavailable, a one-line reason, if either cannot be done.
 */
export async function openScratchSchema(
  prefix: string,
  options: { databaseUrl?: string } = {},
): Promise<ScratchSchema> {
  const started = performance.now();
  const server = await startPostgres(
    options.databaseUrl !== undefined ? { databaseUrl: options.databaseUrl } : {},
  );
  const startMs = server.external ? 0 : performance.now() - started;
  let schema;
  try {
    schema = await createSchema(server.url, prefix);
  } catch (e) {
    await server.stop();
    throw e;
  }
  let closed = false;
  return {
    url: schema.url,
    where: `${redact(server.url)}, schema ${schema.name}`,
    server: server.external ? "DATABASE_URL" : "embedded PostgreSQL",
    startMs,
    async close() {
      if (closed) return;
      closed = true;
      try {
        await schema.drop();
      } finally {
        await server.stop();
      }
    },
  };
}
