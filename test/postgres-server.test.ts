// The workbook's own PostgreSQL server (lib/postgres/server.ts): it starts on 127.0.0.1 in a scratch
// folder, answers SQL, and leaves no process and no file behind, whether stopped or its owner killed.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { test } from "node:test";
import pg from "pg";
import { processEnded, startPostgres, PostgresUnavailable } from "../lib/postgres/server.ts";
import { createSchema } from "../lib/postgres/schema.ts";

const alive = (pid: number): boolean => !processEnded(pid);

test("starts a real PostgreSQL 18 on loopback, a schema of one's own, then stops and leaves nothing", async () => {
  const server = await startPostgres({ databaseUrl: "" });
  assert.equal(server.external, false);
  assert.match(server.url, /^postgres:\/\/\w+@127\.0\.0\.1:\d+\/postgres$/);
  const schema = await createSchema(server.url, "launcher_test");
  const c = new pg.Client({ connectionString: schema.url });
  await c.connect();
  const version = (await c.query<{ server_version: string }>("SHOW server_version")).rows[0]!.server_version;
  const where = (await c.query<{ s: string }>("SELECT current_schema() AS s")).rows[0]!.s;
  const isolation = (await c.query<{ transaction_isolation: string }>("SHOW transaction_isolation")).rows[0]!.transaction_isolation;
  const addr = (await c.query<{ a: string | null }>("SELECT inet_server_addr()::text AS a")).rows[0]!.a;
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

test("a DATABASE_URL is used as it is and never stopped; a malformed one is a one-line error", async () => {
  const own = await startPostgres({ databaseUrl: "postgres://someone@127.0.0.1:1/db" });
  assert.equal(own.external, true);
  assert.equal(own.url, "postgres://someone@127.0.0.1:1/db");
  await own.stop();
  await assert.rejects(startPostgres({ databaseUrl: "mysql://x" }), (e: Error) => e instanceof PostgresUnavailable && !e.message.includes("\n"));
});

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  test(`the owner stopped by ${signal}: its server and scratch folder go with it`, async () => {
    const script = `import { startPostgres } from ${JSON.stringify(new URL("../lib/postgres/server.ts", import.meta.url).href)};
      const s = await startPostgres({ databaseUrl: "" });
      console.log(JSON.stringify({ pid: s.pid, folder: s.folder }));
      setInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "inherit"] });
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
    const exited = new Promise<string | null>((resolve) => child.once("exit", (_c, s) => resolve(s)));
    child.kill(signal);
    assert.equal(await exited, signal);
    assert.equal(alive(pid), false, "the server died with its owner");
    assert.equal(existsSync(folder), false, "its data went with it");
  });
}
