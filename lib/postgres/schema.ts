/**
 * A schema of one's own on a PostgreSQL server: each lesson run, tracker and test file works in a
 * fresh schema, so that a learner's own server (DATABASE_URL) is left as it was, and test files that
 * share one server do not see each other's tables. The URL it hands out chooses the schema for every
 * connection made with it (`options=-c search_path=…`, which `pg` passes to the server).
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createRequire } from "node:module";
import pg from "pg";
import { onExitCleanup } from "../core/scratch.ts";
import { PostgresUnavailable, startedHere } from "./server.ts";

/**
 * Drops a schema while this process is on its way out (Ctrl-C, SIGTERM), when nothing asynchronous
 * runs any more: in a short child process, waited for, at most 5 s. Only for a server this process
 * did not start (a learner's DATABASE_URL); one started here is removed whole.
 */
function dropOnExit(url: string, name: string): () => void {
  if (startedHere(url)) return () => {};
  // Resolved here, not at load: the chaos run's CommonJS bundle loads this module without import.meta.
  const pgModule = createRequire(import.meta.url).resolve("pg");
  return onExitCleanup(() => {
    const script = `const pg = require(${JSON.stringify(pgModule)});
      const c = new pg.Client({ connectionString: process.argv[1] });
      c.on("error", () => {});
      c.connect().then(() => c.query("DROP SCHEMA IF EXISTS ${name} CASCADE")).catch(() => {}).finally(() => c.end().catch(() => {}));`;
    spawnSync(process.execPath, ["-e", script, url], { stdio: "ignore", timeout: 5_000 });
  });
}

export interface Schema {
  /** The schema's name, `<prefix>_<random>`. */
  readonly name: string;
  /** A URL whose connections work in this schema. */
  readonly url: string;
  /** Drops the schema and everything in it. */
  drop(): Promise<void>;
}

/** `url` with `search_path` set to `schema` for every connection made with it. */
export function urlInSchema(url: string, schema: string): string {
  const u = new URL(url);
  u.searchParams.set("options", `-c search_path=${schema}`);
  return u.toString();
}

/** Creates a new schema named after `prefix` (lower-case letters, digits, _). */
export async function createSchema(url: string, prefix: string): Promise<Schema> {
  if (!/^[a-z][a-z0-9_]{0,40}$/.test(prefix))
    throw new Error(`a schema prefix is lower-case letters, digits and _ (got "${prefix}")`);
  const name = `${prefix}_${randomBytes(5).toString("hex")}`;
  const client = new pg.Client({ connectionString: url });
  client.on("error", () => {}); // a server that goes away: the awaited query rejects with the reason
  try {
    await client.connect();
    await client.query(`CREATE SCHEMA ${name}`);
  } catch (e) {
    const where = redact(url);
    const why = (e as Error).message;
    throw new PostgresUnavailable(`cannot create a schema on ${where}: ${why}`, "no-schema", {
      where,
      why,
    });
  } finally {
    await client.end().catch(() => {});
  }
  const forget = dropOnExit(url, name);
  return {
    name,
    url: urlInSchema(url, name),
    drop: async () => {
      forget();
      const c = new pg.Client({ connectionString: url });
      c.on("error", () => {});
      await c.connect();
      try {
        await c.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`);
      } finally {
        await c.end();
      }
    },
  };
}

/** The URL without its password, for messages. */
export function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "(not a URL)";
  }
}

/**
 * Runs `work` in a fresh schema named after `prefix` on the server at `url`, with one connection of
 * its own; the connection is closed and the schema dropped afterwards, whatever `work` did.
 */
export async function withSchema<T>(
  url: string,
  prefix: string,
  work: (url: string, db: pg.Client) => Promise<T>,
): Promise<T> {
  const schema = await createSchema(url, prefix);
  const db = new pg.Client({ connectionString: schema.url });
  try {
    await db.connect();
    return await work(schema.url, db);
  } finally {
    await db.end().catch(() => {});
    await schema.drop();
  }
}
