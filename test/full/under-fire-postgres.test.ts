// The service under fire, round 3, on PostgreSQL (the SQLite share is test/under-fire.test.ts): the
// server ends the tracker's connections in the middle of a storm, and the tracker keeps answering;
// and what a `--store postgres` tracker killed with SIGKILL leaves: its embedded server and folder
// (gone within seconds: a watcher stops them) and its schema on DATABASE_URL's server (dropped by
// the next run that makes a schema there, never while its owner lives).
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import pg from "pg";
import { httpCall, type Outcome } from "../../lib/client/client.ts";
import { createSchema } from "../../lib/postgres/schema.ts";
import { ROOT } from "../../lib/runner/catalog.ts";
import { childEnv } from "../../lib/runner/exercise-run.ts";
import { startChildTracker } from "../../lib/tracker/child.ts";
import { gone, running } from "../run-helpers.ts";
import { testServerUrl } from "./postgres-helpers.ts";

type Response = Extract<Outcome, { kind: "response" }>;

/** A client of the test's own, on the test run's server. */
async function client(url: string): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: url });
  c.on("error", () => {});
  await c.connect();
  return c;
}

/** Ends every backend of the tracker (its connections carry this application_name); how many. */
async function terminate(admin: pg.Client, app: string): Promise<number> {
  const r = await admin.query(
    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1",
    [app],
  );
  return r.rowCount ?? 0;
}

test("PostgreSQL ends the tracker's connections mid-storm, in transactions and out: every request gets 201, 409 or a 503 with Retry-After, the port stays open, and the retries file each report once", {
  timeout: 240_000,
}, async (t) => {
  const server = await testServerUrl();
  const schema = await createSchema(server, "under_fire");
  const app = `storm_${process.pid}`;
  const url = new URL(schema.url);
  url.searchParams.set("application_name", app);
  const admin = await client(server);
  // The child's clock is the test's: a lease runs out when the test moves it, not by chance.
  let clock = 0;
  const LEASE_MS = 1_000;
  const tracker = await startChildTracker({
    variant: "fenced",
    postgres: url.toString(),
    leaseMs: LEASE_MS,
    clockMs: clock,
    startTimeoutMs: 60_000,
  });
  const KEYS = 120;
  const send = (i: number): Promise<Outcome> =>
    httpCall({
      method: "POST",
      url: `${tracker.url}/reports`,
      body: { title: `storm report ${i}` },
      headers: { "idempotency-key": `storm-${i}` },
      timeoutMs: 120_000,
    });
  const locker = await client(schema.url);
  try {
    // 1. Every completing transaction waits for the test's lock on reports, holding its pool
    //    connection checked out, BEGIN sent, the INSERT in flight.
    await locker.query("BEGIN");
    await locker.query("LOCK TABLE reports IN SHARE MODE");
    let answered = 0;
    let midStorm: Promise<number> | undefined;
    const outcomes = Array.from({ length: KEYS }, (_, i) =>
      send(i).then((o) => {
        // 3. A second blow, at whatever each connection is doing by then: after the 40th answer.
        if (++answered === 40) midStorm = terminate(admin, app);
        return o;
      }),
    );
    // 2. Once the pool's ten connections all wait on the lock inside their transactions, the
    //    server ends them all; then the lock goes.
    for (;;) {
      const waiting = await admin.query(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock' AND state = 'active'",
        [app],
      );
      if (waiting.rows[0].n >= 10) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.ok((await terminate(admin, app)) >= 10);
    await locker.query("ROLLBACK");

    const first = await Promise.all(outcomes);
    await midStorm;
    const notAnswers = first.filter((o) => o.kind !== "response");
    assert.deepEqual(notAnswers, [], "every request got an HTTP answer: the port never closed");
    const answers = first as Response[];
    const statuses = new Map<number, number>();
    for (const r of answers) statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
    assert.ok(
      answers.every((r) => [201, 409, 503].includes(r.status)),
      `statuses: ${JSON.stringify([...statuses])}`,
    );
    t.diagnostic(`first round: ${JSON.stringify(Object.fromEntries(statuses))}`);
    assert.ok((statuses.get(503) ?? 0) >= 10, "the ten transactions ended under them: 503");
    for (const r of answers.filter((a) => a.status === 503)) {
      assert.equal(r.headers["content-type"], "application/problem+json");
      assert.match(String(r.headers["retry-after"]), /^[1-9][0-9]*$/);
    }

    // 4. The client's retries, same key each: a claim left behind by a lost transaction is taken
    //    over once its lease has run out (the test moves the clock past it between rounds).
    let pending = answers.flatMap((r, i) => (r.status === 201 ? [] : [i]));
    for (let round = 1; pending.length > 0; round++) {
      assert.ok(round <= 5, `still not filed after 5 rounds: ${pending.join(", ")}`);
      clock += LEASE_MS + 1;
      await tracker.setClock(clock);
      const again = await Promise.all(pending.map(send));
      assert.deepEqual(
        again.filter((o) => o.kind !== "response"),
        [],
        "every retry got an HTTP answer",
      );
      pending = pending.filter((_, j) => (again[j] as Response).status !== 201);
    }
    const count = await admin.query(`SELECT count(*)::int AS n FROM ${schema.name}.reports`);
    assert.equal(count.rows[0].n, KEYS, "one report per key: none lost, none twice");
    const titles = await admin.query(
      `SELECT count(DISTINCT title)::int AS n FROM ${schema.name}.reports`,
    );
    assert.equal(titles.rows[0].n, KEYS);
  } finally {
    await locker.end().catch(() => {});
    await tracker.close();
    await admin.end();
    await schema.drop();
  }
});

/** `npm run tracker -- --store postgres` in a process of its own; resolves once it listens. */
/** Every tracker process the tests start: killed when the file's tests end, whatever they did. */
const started = new Set<ReturnType<typeof spawn>>();
after(() => {
  for (const proc of started) proc.kill("SIGKILL");
});

async function startPostgresTracker(databaseUrl: string): Promise<{
  banner: string;
  kill(): Promise<void>;
}> {
  const proc = spawn(
    process.execPath,
    ["--import", "tsx", "lib/tracker/cli.ts", "--variant", "fenced", "--store", "postgres"],
    {
      cwd: ROOT,
      env: childEnv({ NO_COLOR: "1", DATABASE_URL: databaseUrl }),
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stdout = "";
  let stderr = "";
  proc.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  const ended = new Promise<void>((resolve) => proc.on("close", () => resolve()));
  started.add(proc);
  const banner = await new Promise<string>((resolve, reject) => {
    proc.stdout.on("data", (c: Buffer) => {
      stdout += c.toString();
      // The banner wraps at the width it writes to; the line after it says how to stop.
      const m = /listening on[\s\S]*?(?=\nCtrl-C)/.exec(stdout);
      if (m) resolve(m[0].replace(/\s+/g, " "));
    });
    void ended.then(() => reject(new Error(`ended before listening: ${stdout}${stderr}`)));
  });
  return {
    banner,
    async kill() {
      proc.kill("SIGKILL");
      await ended;
    },
  };
}

async function schemaExists(server: string, name: string): Promise<boolean> {
  const c = await client(server);
  try {
    return (await c.query("SELECT 1 FROM pg_namespace WHERE nspname = $1", [name])).rowCount === 1;
  } finally {
    await c.end();
  }
}

/** The embedded server listening on `port`: its folder and postmaster PID (from postmaster.pid). */
function embeddedOn(port: number): { folder: string; pid: number } | undefined {
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith("retry-workbook-pg-")) continue;
    const folder = join(tmpdir(), name);
    try {
      const lines = readFileSync(join(folder, "data", "postmaster.pid"), "utf8").split("\n");
      if (Number(lines[3]) === port) return { folder, pid: Number(lines[0]) };
    } catch {
      // not started, or going
    }
  }
  return undefined;
}

test("SIGKILL of a --store postgres tracker with its own embedded PostgreSQL: the server and its folder are gone within seconds", {
  timeout: 180_000,
}, async () => {
  const tracker = await startPostgresTracker("");
  const port = Number(/@127\.0\.0\.1:(\d+)\//.exec(tracker.banner)?.[1]);
  const embedded = embeddedOn(port);
  assert.ok(embedded, `the embedded server on port ${port}: ${tracker.banner}`);
  assert.equal(running(embedded.pid), true);
  try {
    await tracker.kill();
    // Nothing of the killed process runs its clean-up; its watcher does.
    await gone(embedded.pid, "the embedded PostgreSQL", 60_000);
    const deadline = Date.now() + 30_000;
    while (existsSync(embedded.folder) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    assert.equal(existsSync(embedded.folder), false, `${embedded.folder} is deleted`);
  } finally {
    // (Red, before the watcher: the server ran on under PID 1 with its folder.)
    if (running(embedded.pid)) process.kill(-embedded.pid, "SIGKILL");
    rmSync(embedded.folder, { recursive: true, force: true });
  }
});

test("SIGKILL of a --store postgres tracker on DATABASE_URL's server: its schema is dropped by the next run that makes a schema there; a live one never is", {
  timeout: 120_000,
}, async () => {
  const server = await testServerUrl();
  const live = await createSchema(server, "still_live");
  const tracker = await startPostgresTracker(server);
  const name = /schema (tracker_[0-9a-f]+)/.exec(tracker.banner)?.[1];
  assert.ok(name, tracker.banner);
  await tracker.kill();
  assert.equal(await schemaExists(server, name), true, "SIGKILL runs no clean-up");
  const next = await createSchema(server, "next_run");
  try {
    assert.equal(await schemaExists(server, name), false, "the killed run's schema is dropped");
    assert.equal(await schemaExists(server, live.name), true, "a live run's schema stays");
    assert.equal(await schemaExists(server, next.name), true);
  } finally {
    await next.drop();
    await live.drop();
    const c = await client(server);
    await c.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`);
    await c.end();
  }
});
