/**
 * A schema of one's own on a PostgreSQL server: each lesson run, tracker and test file works in a
 * fresh schema, so that a learner's own server (DATABASE_URL) is left as it was, and test files that
 * share one server do not see each other's tables. The URL it hands out chooses the schema for every
 * connection made with it (`options=-c search_path=…`, which `pg` passes to the server).
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { PostgresUnavailable } from "./server.ts";

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
  if (!/^[a-z][a-z0-9_]{0,40}$/.test(prefix)) throw new Error(`a schema prefix is lower-case letters, digits and _ (got "${prefix}")`);
  const name = `${prefix}_${randomBytes(5).toString("hex")}`;
  const client = new pg.Client({ connectionString: url });
  client.on("error", () => {}); // a server that goes away: the awaited query rejects with the reason
  try {
    await client.connect();
    await client.query(`CREATE SCHEMA ${name}`);
  } catch (e) {
    throw new PostgresUnavailable(`cannot create a schema on ${redact(url)}: ${(e as Error).message}`);
  } finally {
    await client.end().catch(() => {});
  }
  return {
    name,
    url: urlInSchema(url, name),
    drop: async () => {
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
