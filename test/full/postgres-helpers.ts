// PostgreSQL for a test file: a schema of its own on the run's one server (test/full/global-postgres.ts),
// or, for a file run by itself (node --test test/full/x.test.ts), on a server this file starts and stops.
// When PostgreSQL cannot start, every use fails with the one-line reason, without waiting.
import { after } from "node:test";
import pg from "pg";
import { createSchema, type Schema } from "../../lib/postgres/schema.ts";
import {
  type PostgresServer,
  PostgresUnavailable,
  startPostgres,
} from "../../lib/postgres/server.ts";

import { POSTGRES_ERROR_ENV, POSTGRES_URL_ENV } from "./global-postgres.ts";

let schema: Promise<Schema> | undefined;
let server: Promise<string> | undefined;
let ownServer: PostgresServer | undefined;

// When the file's tests end: its schema dropped, and the server stopped if this file started it.
after(async () => {
  const s = await schema?.catch(() => undefined);
  await s?.drop().catch(() => {});
  await ownServer?.stop();
});

async function start(): Promise<string> {
  const failed = process.env[POSTGRES_ERROR_ENV];
  if (failed) throw new PostgresUnavailable(`PostgreSQL is unavailable for the tests: ${failed}`);
  const url = process.env[POSTGRES_URL_ENV];
  if (url !== undefined) return url;
  ownServer = await startPostgres({ timeoutMs: 30_000 });
  return ownServer.url;
}

/** The test run's server (no schema chosen): for code that makes a schema of its own. */
export function testServerUrl(): Promise<string> {
  server ??= start();
  return server;
}

async function open(prefix: string): Promise<Schema> {
  return createSchema(await testServerUrl(), prefix);
}

/** This file's schema (created on first use, dropped when the file's tests end). */
export function fileSchema(prefix: string): Promise<Schema> {
  schema ??= open(prefix);
  return schema;
}

/** Empties the tracker's tables in the schema (between two tests of one file), ids from 1 again. */
export async function emptyTrackerTables(url: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(`DO $$ BEGIN
      IF to_regclass('reports') IS NOT NULL THEN TRUNCATE reports, idempotency_keys RESTART IDENTITY; END IF;
    END $$`);
  } finally {
    await c.end();
  }
}
