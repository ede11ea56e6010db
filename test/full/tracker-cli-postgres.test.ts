// `npm run tracker -- --store postgres`: the standalone tracker on PostgreSQL (here the test run's
// server, given as DATABASE_URL), in a schema of its own that it drops when it stops; and its
// refusals: an unknown store, --db or a crash fault with postgres, a server it cannot reach.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { test } from "node:test";
import pg from "pg";
import { httpCall, type Outcome } from "../../lib/client/client.ts";
import { ROOT } from "../../lib/runner/catalog.ts";
import { childEnv } from "../../lib/runner/exercise-run.ts";
import { runTs } from "../run-helpers.ts";
import { testServerUrl } from "./postgres-helpers.ts";

/** No test here waits forever: one that hangs fails after this long, saying so. */
const LIMIT = { timeout: 30_000 };

const CLI = "lib/tracker/cli.ts";
type Response = Extract<Outcome, { kind: "response" }>;

async function post(url: string, key: string): Promise<Response> {
  const o = await httpCall({
    method: "POST",
    url: `${url}/reports`,
    body: { title: "Login button does nothing" },
    headers: { "idempotency-key": key },
    timeoutMs: 10_000,
  });
  assert.equal(o.kind, "response", JSON.stringify(o));
  return o as Response;
}

async function schemaExists(serverUrl: string, name: string): Promise<boolean> {
  const c = new pg.Client({ connectionString: serverUrl });
  await c.connect();
  try {
    return (
      (await c.query("SELECT 1 FROM information_schema.schemata WHERE schema_name = $1", [name]))
        .rowCount === 1
    );
  } finally {
    await c.end();
  }
}

test(
  "--store postgres: serves from a schema of its own on DATABASE_URL's server, replays, and drops the schema on SIGTERM",
  LIMIT,
  async (t) => {
    const server = await testServerUrl();
    const proc = spawn(
      process.execPath,
      ["--import", "tsx", CLI, "--variant", "fenced", "--store", "postgres"],
      {
        cwd: ROOT,
        env: childEnv({ NO_COLOR: "1", DATABASE_URL: server }),
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    // A test that fails or times out must not leave its tracker running (and the test file with it).
    t.after(() => proc.kill("SIGKILL"));
    let stdout = "";
    let stderr = "";
    proc.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    const ended = new Promise<number | null>((resolve) =>
      proc.on("close", (code) => resolve(code)),
    );
    const banner = await new Promise<RegExpExecArray>((resolve, reject) => {
      proc.stdout.on("data", (c: Buffer) => {
        stdout += c.toString();
        const m =
          /listening on (http:\/\/127\.0\.0\.1:\d+)\s+postgres\s[\s\S]*?, schema (tracker_[0-9a-f]+) \(DATABASE_URL\)/.exec(
            stdout,
          );
        if (m) resolve(m);
      });
      void ended.then(() => reject(new Error(`ended before listening: ${stdout}${stderr}`)));
    });
    const [, url, schema] = banner as unknown as [string, string, string];
    try {
      assert.equal(await schemaExists(server, schema), true);
      const first = await post(url, "cli-key-1");
      const again = await post(url, "cli-key-1");
      assert.equal(first.status, 201);
      assert.deepEqual([again.status, again.headers["idempotent-replayed"]], [201, "true"]);
    } finally {
      proc.kill("SIGTERM");
    }
    assert.equal(await ended, 0, stderr);
    assert.match(stdout, /#2 POST \/reports → 201 \(replayed\)/);
    assert.match(stdout, /stopped \(SIGTERM\), its schema dropped\n$/);
    assert.equal(await schemaExists(server, schema), false, "the schema is gone");
  },
);

test(
  "--store: bad values and combinations are one line with exit 2; an unreachable server is one line with exit 1",
  LIMIT,
  async () => {
    for (const args of [
      ["--store", "mysql"],
      ["--store", "postgres", "--db", "x.sqlite"],
      ["--store", "postgres", "--fault", "crash-after-claim@1"],
    ]) {
      const r = await runTs([CLI, "--variant", "fenced", ...args]);
      assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
      assert.match(r.stderr, /^error: .*(--store|--db|crash).* \(try --help\)\n$/, args.join(" "));
    }
    const down = await runTs([CLI, "--variant", "fenced", "--store", "postgres"], {
      env: { DATABASE_URL: "postgres://nobody@127.0.0.1:1/none" },
    });
    assert.equal(down.code, 1, down.stderr);
    assert.match(down.stderr, /^error: .*127\.0\.0\.1:1.*\n$/);
    assert.equal(down.stderr.split("\n").length, 2, "one line");
    const help = await runTs([CLI, "--help"]);
    assert.match(help.stdout, /--store/);
    assert.match(help.stdout, /DATABASE_URL/);
  },
);

test(
  "Ctrl-C while a schema is open on DATABASE_URL's server: the schema is dropped on the way out",
  LIMIT,
  async (t) => {
    // A lesson or a chaos run drops its schema in an async `finally`, which a Ctrl-C never reaches:
    // the schema's own exit clean-up must drop it. Here a process opens one and waits to be stopped.
    const server = await testServerUrl();
    const script = `import { createSchema } from "./lib/postgres/schema.ts";
    const s = await createSchema(process.env.DATABASE_URL, "ctrlc");
    console.log("schema " + s.name);
    setInterval(() => {}, 1000);`;
    const proc = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      cwd: ROOT,
      env: childEnv({ NO_COLOR: "1", DATABASE_URL: server }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    t.after(() => proc.kill("SIGKILL"));
    let stdout = "";
    const ended = new Promise<NodeJS.Signals | null>((resolve) =>
      proc.on("close", (_code, signal) => resolve(signal)),
    );
    const name = await new Promise<string>((resolve, reject) => {
      proc.stdout.on("data", (c: Buffer) => {
        stdout += c.toString();
        const m = /schema (ctrlc_[0-9a-f]+)/.exec(stdout);
        if (m) resolve(m[1]!);
      });
      void ended.then(() => reject(new Error(`ended before its schema: ${stdout}`)));
    });
    assert.equal(await schemaExists(server, name), true);
    proc.kill("SIGINT");
    assert.equal(await ended, "SIGINT", "it still ends as Ctrl-C says");
    assert.equal(await schemaExists(server, name), false, "the schema is gone");
  },
);
