// Claims found wrong in a fact check of the lessons, kept from coming back where they are not
// printed (a lesson's header or a source comment). Printed claims are checked in each lesson's test.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import type { IdempotencyBench } from "../lib/bench/idempotency.ts";
import { postgresReport } from "../lib/bench/report.ts";
import { readLessonHeader } from "../lib/core/header.ts";
import { stripeDefaultRetries } from "../lib/http-clients/probes/stripe.ts";
import { shippedText } from "./temp-project.ts";

const flat = (text: string): string => text.replace(/\s*\n\s*(\/\/|\*)?\s*/g, " ");
/** A project file, its lines joined; an exercise as shipped, never the learner's working copy. */
const read = (file: string): string =>
  flat(
    file.startsWith("exercises/")
      ? shippedText(file)
      : readFileSync(new URL(`../${file}`, import.meta.url), "utf8"),
  );

test("SQLite: WAL is not what lets processes share a file; it keeps readers and the writer from blocking each other", () => {
  for (const file of ["lessons/07-outbox.ts", "lib/tracker/store.ts"]) {
    const text = read(file);
    assert.doesNotMatch(
      text,
      /WAL lets two processes share|several processes share the file safely/,
      file,
    );
  }
  assert.match(
    read("lessons/07-outbox.ts"),
    /readers do not block the writer, the writer does not block readers/,
  );
});

test("lesson 05 names the edition of Kleppmann's book it cites", () => {
  assert.match(
    read("lessons/05-leases-and-fencing.ts"),
    /Designing Data-Intensive Applications" \(1st edition, O'Reilly, 2017\), ch\. 8/,
  );
});

test("the AWS quota: lesson 03 and exercise 03a charge 10 for a transient error such as a 503", () => {
  assert.match(
    read("exercises/03a-retry-quota.ts"),
    /a transient error \(HTTP 500, 502, 503 or 504, a timeout, a reset connection\) costs TIMEOUT_RETRY_COST/,
  );
  assert.match(read("lib/client/token-bucket.ts"), /So a 503 retry costs 10/);
});

test("the README's lesson table leaves exercise 02a's answer to the learner, and names stripe-node's key", () => {
  const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
  const row = (n: string) => readme.split("\n").find((l) => l.startsWith(`| ${n} |`)) ?? "";
  assert.doesNotMatch(row("02"), /1600|1,600/);
  assert.match(row("09"), /only stripe-node sends an Idempotency-Key of its own/);
  assert.doesNotMatch(row("09"), /no Idempotency-Key sent/);
});

test("exercise 02a says in one line what Codex's sampling layer is", () => {
  assert.match(
    read("exercises/02a-codex-backoff.ts"),
    /Codex's sampling layer, the loop that sends a whole model request again when its answer's stream fails/,
  );
});

test("lesson 10 and the claim race cite what says ON CONFLICT's 40001 above READ COMMITTED, not 13.2.2 and 13.2.3", () => {
  for (const file of ["lessons/10-more-than-one-server.ts", "lib/cluster/claim-race.ts"]) {
    const text = read(file);
    // 13.2.2 and 13.2.3 describe 40001 for UPDATE, DELETE, MERGE and SELECT FOR UPDATE/SHARE only.
    assert.doesNotMatch(text, /13\.2\.2 and 13\.2\.3/, file);
    assert.match(text, /Index Uniqueness Checks/, file);
    assert.match(text, /nodeModifyTable\.c,? ExecCheckTupleVisible/, file);
  }
  assert.match(
    read("lessons/10-more-than-one-server.ts"),
    /13\.2\.1: ON CONFLICT DO NOTHING skipping a row another transaction inserted "is only the case in Read Committed mode"/,
  );
});

test("lesson 10 names the source of the rollback when a killed dispatcher's connection closes", () => {
  assert.match(
    read("lessons/10-more-than-one-server.ts"),
    /the server rolls its transaction back \(PostgreSQL documentation, "Frontend\/Backend Protocol", Termination: "any open transaction is rolled back, not committed"\)/,
  );
});

test("synchronous_commit=off: any operating system or database crash, up to 3 × wal_writer_delay (600 ms at the default), in the README and the bench's report", () => {
  const readme = flat(readFileSync(new URL("../README.md", import.meta.url), "utf8"));
  const empty = {
    spec: { concurrency: 16, warmupMs: 500, roundMs: 1000, rounds: 10 },
    results: [],
    fileSystem: "ext4",
  } as IdempotencyBench;
  const report = flat(postgresReport(empty, "embedded"));
  for (const [name, text] of [
    ["README.md", readme],
    ["lib/bench/report.ts", report],
  ] as const) {
    assert.doesNotMatch(text, /a PostgreSQL crash may (then )?lose|200 ms by default/, name);
    assert.match(
      text,
      /an operating system or database crash"? may (then )?lose the commits answered in up to the last 3 × `?wal_writer_delay`? \(600 ms at its default of 200 ms\)/,
      name,
    );
    assert.match(
      text,
      /PostgreSQL documentation, `?synchronous_commit`? and "Asynchronous Commit"/,
      name,
    );
  }
});

test("lesson 10's run time: one figure, the same in both READMEs and in the lesson's own summary", () => {
  const readme = flat(readFileSync(new URL("../README.md", import.meta.url), "utf8"));
  const zh = readFileSync(new URL("../README.zh-CN.md", import.meta.url), "utf8");
  const en = /and lesson 10 \(about (\d+) s:/.exec(readme)?.[1];
  const cn = /第 10 课也除外（约 (\d+) 秒：/.exec(zh)?.[1];
  const own = /eighteen tracker and dispatcher processes; takes about ([\d–-]+) s\./.exec(
    readLessonHeader(new URL("../lessons/10-more-than-one-server.ts", import.meta.url).href)
      .summary,
  )?.[1];
  assert.ok(
    en !== undefined && cn !== undefined && own !== undefined,
    `README ${en}, README.zh-CN ${cn}, lesson ${own}`,
  );
  assert.equal(cn, en);
  assert.equal(own, en, "the lesson's summary states one figure, the READMEs' (not a range)");
});

test("stripe-node's default retries: 2 in the code the lesson runs, 1 in its README; the lesson and the probe name both", () => {
  const retries = stripeDefaultRetries();
  assert.deepEqual(
    [retries.node.text, retries.platform.text, retries.readme.text],
    ["2", "2", "1"],
  );
  for (const file of ["lessons/09-your-http-client.ts", "lib/http-clients/probes/stripe.ts"]) {
    const text = read(file);
    assert.match(text, /PlatformFunctions\.js/, file);
    assert.match(text, /README/, file);
    assert.match(text, /CHANGELOG/, file);
  }
});

test("the READMEs' lesson 10 row: Spanner's conflict is ABORTED, not 40001", () => {
  const row = (file: string) =>
    readFileSync(new URL(`../${file}`, import.meta.url), "utf8")
      .split("\n")
      .find((l) => l.startsWith("| 10 |")) ?? "";
  assert.match(
    row("README.md"),
    /distributed SQL \(CockroachDB, YugabyteDB, Spanner\): 40001 \(Spanner: ABORTED\) means run the whole transaction again/,
  );
  assert.match(
    row("README.zh-CN.md"),
    /分布式 SQL（CockroachDB、YugabyteDB、Spanner）：40001（Spanner 是 ABORTED）表示整个事务重跑一遍/,
  );
});
