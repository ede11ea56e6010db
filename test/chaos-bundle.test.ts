// The chaos run starts its tracker processes from one bundled CommonJS file (lib/chaos/bundle.ts), not
// from the TypeScript sources: a process so started loads no .ts module, serves as the TypeScript one
// does (a report filed once, its retry replayed), and dies and starts again the same way. Started
// quiet, it tells only of arrivals, and its parent keeps one count of them.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { bundleEntry, bundleTrackerChild } from "../lib/chaos/bundle.ts";
import { httpCall } from "../lib/client/client.ts";
import { tempFolder } from "../lib/core/scratch.ts";
import { startChildTracker } from "../lib/tracker/child.ts";

test("the bundled tracker child: one file that loads no .ts module, and serves a report and its replay", async () => {
  const folder = tempFolder("retry-workbook-bundle-test-");
  try {
    const entry = await bundleTrackerChild(folder.dir);
    assert.ok(entry.endsWith(".cjs"), entry);
    const text = readFileSync(entry, "utf8");
    assert.ok(
      !/require\(["'][^"']*\.ts["']\)/.test(text),
      "the bundle requires no TypeScript file",
    );
    assert.ok(
      /\brequire\(["']node:sqlite["']\)/.test(text),
      "the bundle leaves Node's built-ins to Node",
    );
    const db = join(folder.dir, "t.sqlite");
    const post = (url: string) =>
      httpCall({
        method: "POST",
        url: `${url}/reports`,
        body: { title: "bundled" },
        headers: { "idempotency-key": '"k-1"' },
        timeoutMs: 5_000,
      });
    const first = await startChildTracker({ variant: "fenced", db, quiet: true, entry });
    const a = await post(first.url);
    assert.equal(a.kind === "response" ? a.status : a.kind, 201);
    // Killed and started again on the same port and file, as the cluster does: the retry is replayed.
    await first.kill();
    const again = await startChildTracker({
      variant: "fenced",
      db,
      port: first.port,
      quiet: true,
      entry,
    });
    const b = await post(again.url);
    assert.equal(b.kind === "response" ? b.status : b.kind, 201);
    assert.equal(b.kind === "response" ? b.headers["idempotent-replayed"] : undefined, "true");
    assert.deepEqual(
      b.kind === "response" ? (b.body as { id: number }).id : undefined,
      a.kind === "response" ? (a.body as { id: number }).id : undefined,
    );
    await again.close();
  } finally {
    folder.remove();
  }
});

test("a quiet tracker process counts arrivals: request n has arrived once n have, nobody having waited for the others", async () => {
  const folder = tempFolder("retry-workbook-bundle-test-");
  const entry = await bundleTrackerChild(folder.dir);
  const tracker = await startChildTracker({
    variant: "fenced",
    db: join(folder.dir, "t.sqlite"),
    quiet: true,
    entry,
  });
  try {
    const third = tracker.reached(3, "arrived");
    for (let i = 1; i <= 3; i++) {
      const r = await httpCall({
        method: "POST",
        url: `${tracker.url}/reports`,
        body: { title: `quiet ${i}` },
        headers: { "idempotency-key": `"q-${i}"` },
        timeoutMs: 5_000,
      });
      assert.equal(r.kind === "response" ? r.status : r.kind, 201);
    }
    await third;
    await tracker.reached(2, "arrived"); // long since: at once
    assert.equal(tracker.hasReached(3, "arrived"), true);
    assert.equal(tracker.hasReached(4, "arrived"), false);
    assert.throws(() => tracker.reached(1, "committed"), /tells of arrivals only/);
    const fourth = tracker.reached(4, "arrived");
    await tracker.kill();
    await assert.rejects(fourth, /exited before request 4 was arrived/);
  } finally {
    await tracker.kill();
    folder.remove();
  }
});

test("a bundled module that says its messages in Chinese finds the catalogues beside the sources", async () => {
  // The tracker narrates through t(), and i18n.ts finds the catalogues from its own import.meta.url:
  // in a CommonJS bundle in a temp folder that URL must still be the source file's.
  const folder = tempFolder("retry-workbook-bundle-test-");
  try {
    const entry = await bundleEntry(
      join(import.meta.dirname, "fixtures", "i18n-entry.ts"),
      join(folder.dir, "i18n-entry.cjs"),
    );
    const run = (lang: string) =>
      spawnSync(process.execPath, [entry], {
        encoding: "utf8",
        env: { ...process.env, WORKBOOK_LANG: lang },
      });
    const zh = run("zh");
    assert.equal(zh.status, 0, zh.stderr);
    assert.equal(zh.stdout, "正在估算");
    assert.equal(run("en").stdout, "estimating");
  } finally {
    folder.remove();
  }
});
