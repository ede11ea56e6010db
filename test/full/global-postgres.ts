// The test run's one PostgreSQL server (`npm run test:full` passes this file as --test-global-setup): started
// once before every test file, its URL handed to them in WORKBOOK_TEST_POSTGRES_URL, stopped after
// the last. Each file works in a schema of its own (test/full/postgres-helpers.ts). If the server cannot
// start, the reason goes to WORKBOOK_TEST_POSTGRES_ERROR instead: the PostgreSQL tests fail with it
// in one line, and every other test runs as usual.
import { type PostgresServer, startPostgres } from "../../lib/postgres/server.ts";

export const POSTGRES_URL_ENV = "WORKBOOK_TEST_POSTGRES_URL";
export const POSTGRES_ERROR_ENV = "WORKBOOK_TEST_POSTGRES_ERROR";

let server: PostgresServer | undefined;

export async function globalSetup(): Promise<void> {
  try {
    server = await startPostgres({ timeoutMs: 30_000 });
    process.env[POSTGRES_URL_ENV] = server.url;
  } catch (e) {
    process.env[POSTGRES_ERROR_ENV] = e instanceof Error ? e.message : String(e);
  }
}

export async function globalTeardown(): Promise<void> {
  await server?.stop();
}
