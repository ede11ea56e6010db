// Demo 2's sessions (lib/demos/step/sessions.ts) without a browser: one step per ask, the database
// read while the cell stands still, at most 8 at once, an idle session stopped with its files, stopAll
// leaving no process and no folder; and the HTTP side: unguessable ids, 404 for an unknown session.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { test } from "node:test";
import { POLICY_NAMES } from "../../lib/client/client.ts";
import { startDemoServer } from "../../lib/demos/server.ts";
import { cellFromUrl, createStepDemo } from "../../lib/demos/step/demo.ts";
import {
  MAX_SESSIONS,
  type SessionMessage,
  type StepSession,
  StepSessions,
} from "../../lib/demos/step/sessions.ts";
import { FAULT_HELP, POLICY_HELP, UI, VARIANT_HELP } from "../../lib/demos/step/text.ts";
import { matrixVariants, STEP_FAULTS } from "../../lib/matrix/matrix.ts";
import { VARIANT_NAMES } from "../../lib/tracker/variant.ts";

/** Resolves with the next message of `session` that passes `want`. */
function next(session: StepSession, want: (m: SessionMessage) => boolean): Promise<SessionMessage> {
  return new Promise((resolve) => {
    const stop = session.listen((m) => {
      if (want(m)) {
        stop();
        resolve(m);
      }
    });
  });
}

test("the page's names are lesson 08's, each with its words, in the code's order", () => {
  assert.deepEqual([...VARIANT_NAMES], matrixVariants());
  assert.deepEqual(Object.keys(VARIANT_HELP), [...VARIANT_NAMES]);
  assert.deepEqual(Object.keys(FAULT_HELP), [...STEP_FAULTS]);
  assert.deepEqual(Object.keys(POLICY_HELP), [...POLICY_NAMES]);
  assert.deepEqual(
    cellFromUrl(new URL("http://x/step?variant=keyed&fault=pause-past-lease&policy=same-key")),
    { variant: "keyed", fault: "pause-past-lease", policy: "same-key" },
  );
  assert.deepEqual(cellFromUrl(new URL("http://x/step?variant=bogus&fault=x")), {
    variant: "naive",
    fault: "lose-response",
    policy: "blind-retry",
  });
});

test("one step per ask; the count is read from the file while the cell stands still", async () => {
  const sessions = new StepSessions();
  const s = sessions.create({ variant: "naive", fault: "lose-response", policy: "blind-retry" })!;
  const counts: number[] = [];
  const whats: string[] = [];
  s.listen((m) => {
    if (m.type === "step") {
      counts.push(m.step.db.reports);
      whats.push(m.step.event.what);
    }
  });
  for (let n = 1; ; n++) {
    const got = next(s, (m) => m.type === "step" || m.type === "done");
    s.step();
    const m = await got;
    if (m.type === "done") {
      assert.equal(m.done.reports, 2);
      break;
    }
    assert.equal(s.shown.length, n, "exactly one step per ask");
    assert.equal(m.type === "step" && m.step.event.seq, n);
  }
  // naive × lose-response: 0 until the first INSERT commits, 1 until the retry's, then 2.
  const firstInsert = whats.indexOf("insert");
  const secondInsert = whats.indexOf("insert", firstInsert + 1);
  assert.ok(firstInsert > 0 && secondInsert > firstInsert);
  assert.deepEqual(
    counts.slice(0, firstInsert),
    counts.slice(0, firstInsert).map(() => 0),
  );
  assert.equal(counts[firstInsert], 1);
  assert.equal(counts[secondInsert - 1], 1);
  assert.equal(counts[secondInsert], 2);
  await sessions.stopAll();
  assert.equal(existsSync(s.dir), false);
});

test(`at most ${MAX_SESSIONS} sessions; stopAll leaves no process and no folder`, async () => {
  const sessions = new StepSessions();
  const all: StepSession[] = [];
  for (let n = 0; n < MAX_SESSIONS; n++)
    all.push(sessions.create({ variant: "keyed", fault: "none", policy: "same-key" })!);
  assert.ok(all.every((s) => s !== undefined));
  assert.equal(new Set(all.map((s) => s.id)).size, MAX_SESSIONS);
  assert.ok(
    all.every((s) => /^[\w-]{22}$/.test(s.id)),
    "128 random bits each",
  );
  assert.equal(
    sessions.create({ variant: "keyed", fault: "none", policy: "same-key" }),
    undefined,
    "the 9th is refused",
  );
  await sessions.stopAll();
  for (const s of all) {
    assert.equal(existsSync(s.dir), false);
    assert.throws(() => process.kill(s.pid, 0), /ESRCH/, `process ${s.pid} is gone`);
  }
  assert.equal(sessions.size, 0);
  assert.equal(
    sessions.create({ variant: "keyed", fault: "none", policy: "same-key" }),
    undefined,
    "none after stopAll",
  );
});

/** A process's environment, as /proc shows it (Linux). */
function environment(pid: number): string[] {
  return readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
}

test("the cell's process speaks the page's language: WORKBOOK_LANG, over HTTP as directly", async () => {
  const sessions = new StepSessions();
  const cell = { variant: "naive", fault: "none", policy: "no-retry" } as const;
  const zh = sessions.create(cell, "zh")!;
  const en = sessions.create(cell)!;
  try {
    assert.equal(zh.lang, "zh");
    assert.ok(environment(zh.pid).includes("WORKBOOK_LANG=zh"), "the zh session's process");
    assert.ok(environment(en.pid).includes("WORKBOOK_LANG=en"), "an English one by default");
  } finally {
    await sessions.stopAll();
  }
  const overHttp = new StepSessions();
  const server = await startDemoServer({ demos: [createStepDemo({ sessions: overHttp })] });
  try {
    for (const lang of ["zh", "en"] as const) {
      const made = await fetch(`${server.url}/step/sessions?variant=naive&lang=${lang}`, {
        method: "POST",
      });
      assert.equal(made.status, 201);
      const { id, pid } = (await made.json()) as { id: string; pid: number };
      assert.equal(overHttp.get(id)?.lang, lang);
      assert.ok(environment(pid).includes(`WORKBOOK_LANG=${lang}`), lang);
    }
  } finally {
    await server.close();
  }
});

test("an idle session is stopped and its files deleted", async () => {
  const sessions = new StepSessions({ idleMs: 50 });
  const s = sessions.create({ variant: "naive", fault: "none", policy: "no-retry" })!;
  const gone = next(s, (m) => m.type === "gone");
  await s.ended;
  await gone;
  assert.equal(existsSync(s.dir), false);
  assert.equal(sessions.get(s.id), undefined);
});

test("over HTTP: a session per POST, 404 with a message for an unknown one, 503 when full", async () => {
  const sessions = new StepSessions({ max: 1 });
  const server = await startDemoServer({ demos: [createStepDemo({ sessions })] });
  try {
    const post = (path: string) => fetch(server.url + path, { method: "POST" });
    const made = await post("/step/sessions?variant=keyed&fault=slow&policy=same-key");
    assert.equal(made.status, 201);
    const { id } = (await made.json()) as { id: string };
    assert.deepEqual(sessions.get(id)?.cell, {
      variant: "keyed",
      fault: "slow",
      policy: "same-key",
    });
    const full = await post("/step/sessions?variant=naive&lang=zh");
    assert.equal(full.status, 503);
    assert.equal(((await full.json()) as { message: string }).message, UI.full.zh);
    for (const path of [
      `/step/sessions/${id.slice(0, -1)}x/step`,
      "/step/sessions/nope-nope-nope/run",
      "/step/sessions/0123456789abcdef/events",
    ]) {
      const res = path.endsWith("events") ? await fetch(server.url + path) : await post(path);
      assert.equal(res.status, 404, path);
      assert.equal(((await res.json()) as { message: string }).message, UI.gone.en);
    }
    assert.equal((await post(`/step/sessions/${id}/step`)).status, 202);
    assert.equal((await post(`/step/sessions/${id}/close`)).status, 202);
    await sessions.get(id)?.ended;
    assert.equal(
      (await post(`/step/sessions/${id}/step`)).status,
      404,
      "a stopped session is gone",
    );
  } finally {
    await server.close();
  }
});

test("a crash cell's database is read at each step as that step left it, the tracker process held too", async () => {
  const sessions = new StepSessions();
  for (const cell of [
    { variant: "key-after", fault: "crash-between-commits", policy: "same-key" },
    { variant: "keyed", fault: "crash-between-commits", policy: "same-key" },
  ] as const) {
    const s = sessions.create(cell)!;
    const done = next(s, (m) => m.type === "done");
    s.listen((m) => {
      if (m.type === "step") s.step();
    });
    s.step();
    await done;
    // The reports committed by the steps shown so far, and the key rows they wrote, against the file.
    let inserted = 0;
    let keyState: string | undefined;
    for (const { event, db } of s.shown) {
      if (event.what === "insert") inserted += 1;
      if (event.what === "claim" || event.what === "take-over") keyState = "in_progress";
      if (event.what === "record-key" || (event.what === "insert" && cell.variant !== "key-after"))
        keyState = "completed";
      const where = `${cell.variant} step ${event.seq} (${event.text})`;
      assert.equal(db.reports, inserted, where);
      assert.equal(db.keys[0]?.state, keyState, where);
    }
    await s.stop();
  }
});
