/**
 * A schema of one's own on a PostgreSQL server: each lesson run, tracker and test file works in a
 * fresh schema, so that a learner's own server (DATABASE_URL) is left as it was, and test files that
 * share one server do not see each other's tables. The URL it hands out chooses the schema for every
 * connection made with it (`options=-c search_path=…`, which `pg` passes to the server).
 *
 * A schema is dropped when its run ends, Ctrl-C and SIGTERM included; a process killed with SIGKILL
 * drops nothing. So each schema is marked live for exactly as long as its process lives: the process
 * holds a session-level advisory lock named after it, on a connection of its own, and the server
 * releases that lock when the connection ends, which it does when the process dies, however it dies.
 * Every new schema first drops the marked schemas whose lock nobody holds (sweepAbandoned): what a
 * killed run left on a learner's server goes with the next run that makes a schema there.
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

/** The comment on every schema made here: what sweepAbandoned looks for. */
const MARK = "retry-workbook run schema: live while its process holds its advisory lock";

/** The advisory lock that marks schema `name` live (a bigint key; its SQL expression, with $1 = name). */
const LOCK_KEY = "hashtextextended('retry-workbook schema ' || $1, 0)";

/**
 * Drops the schemas made here (MARK) whose process is gone: nobody holds their lock. Each is dropped
 * while this connection holds its lock, so that two runs sweeping at once do not trip on each other;
 * a live schema's lock is held by its process, and `pg_try_advisory_lock` leaves it alone. (`own`, the
 * schema this connection has just made, is skipped: a session may take its own lock again.)
 */
async function sweepAbandoned(client: pg.Client, own: string): Promise<string[]> {
  const marked = await client.query<{ name: string }>(
    "SELECT nspname AS name FROM pg_namespace WHERE obj_description(oid, 'pg_namespace') = $1",
    [MARK],
  );
  const dropped: string[] = [];
  for (const { name } of marked.rows) {
    if (name === own || !/^[a-z][a-z0-9_]*$/.test(name)) continue;
    const got = await client.query<{ got: boolean }>(
      `SELECT pg_try_advisory_lock(${LOCK_KEY}) AS got`,
      [name],
    );
    if (!got.rows[0]?.got) continue;
    try {
      await client.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`);
      dropped.push(name);
    } finally {
      await client.query(`SELECT pg_advisory_unlock(${LOCK_KEY})`, [name]);
    }
  }
  return dropped;
}

/** `pg`'s Client can stop keeping the process alive, and start again (not in its types). */
type RefClient = pg.Client & { ref?: () => void; unref?: () => void };

/**
 * The connection that holds schema `name`'s lock for as long as this process runs, or until the
 * schema is dropped. It keeps no process alive (unref), and takes the lock again on a new connection
 * if the server drops this one (a restart): until then a sweep elsewhere could take the schema for
 * abandoned, a window of about a second after the server is back.
 */
function holdLive(url: string, name: string, first: pg.Client): { release(): Promise<void> } {
  let client = first;
  let released = false;
  let retry: NodeJS.Timeout | undefined;
  const watch = (c: pg.Client): void => {
    c.on("error", () => {});
    c.on("end", () => {
      if (released) return;
      retry = setTimeout(() => void again(), 1_000).unref();
    });
    (c as RefClient).unref?.();
  };
  const again = async (): Promise<void> => {
    const c = new pg.Client({ connectionString: url });
    c.on("error", () => {});
    try {
      await c.connect();
      if (released) return void (await c.end());
      await c.query(`SELECT pg_advisory_lock(${LOCK_KEY})`, [name]);
      client = c;
      watch(c);
    } catch {
      await c.end().catch(() => {});
      if (!released) retry = setTimeout(() => void again(), 1_000).unref();
    }
  };
  watch(first);
  return {
    async release() {
      released = true;
      clearTimeout(retry);
      // Held again while it closes: a process awaiting an unreferenced socket may end first.
      (client as RefClient).ref?.();
      await client.end().catch(() => {});
    },
  };
}

/**
 * Creates a new schema named after `prefix` (lower-case letters, digits, _), marked live while this
 * process runs, after dropping the schemas of runs that were killed (sweepAbandoned).
 */
export async function createSchema(url: string, prefix: string): Promise<Schema> {
  if (!/^[a-z][a-z0-9_]{0,40}$/.test(prefix))
    throw new Error(`a schema prefix is lower-case letters, digits and _ (got "${prefix}")`);
  const name = `${prefix}_${randomBytes(5).toString("hex")}`;
  const client = new pg.Client({ connectionString: url });
  client.on("error", () => {}); // a server that goes away: the awaited query rejects with the reason
  try {
    await client.connect();
    // The lock first: the schema is never visible without it.
    await client.query(`SELECT pg_advisory_lock(${LOCK_KEY})`, [name]);
    await client.query(`CREATE SCHEMA ${name}`);
    await client.query(`COMMENT ON SCHEMA ${name} IS '${MARK}'`);
    await sweepAbandoned(client, name);
  } catch (e) {
    await client.end().catch(() => {});
    const where = redact(url);
    const why = (e as Error).message;
    throw new PostgresUnavailable(`cannot create a schema on ${where}: ${why}`, "no-schema", {
      where,
      why,
    });
  }
  const live = holdLive(url, name, client);
  const forget = dropOnExit(url, name);
  return {
    name,
    url: urlInSchema(url, name),
    drop: async () => {
      forget();
      try {
        const c = new pg.Client({ connectionString: url });
        c.on("error", () => {});
        await c.connect();
        try {
          await c.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`);
        } finally {
          await c.end();
        }
      } finally {
        await live.release();
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
