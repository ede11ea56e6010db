// The service under fire, round 3 (on SQLite; PostgreSQL's share is in test/full/under-fire-postgres.test.ts):
// a valid POST pipelined with a malformed request, malformed request targets, two Host lines, a lone
// surrogate, an outside write lock on the SQLite file, and a lease shorter than the handler.
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { test } from "node:test";
import { httpCall } from "../lib/client/client.ts";
import { scratchDir } from "../lib/core/scratch.ts";
import { Faults } from "../lib/tracker/faults.ts";
import type { LeaseOverrun } from "../lib/tracker/router.ts";
import type { VariantName } from "../lib/tracker/variant.ts";
import {
  parseRaw,
  post,
  type RawAnswer,
  raw,
  rawPost,
  response,
  withTracker,
} from "./http-helpers.ts";

const KEYED: VariantName[] = ["key-after", "keyed", "fenced"];

/** Every answer in a raw exchange, in the order they came. */
function answersIn(text: string): RawAnswer[] {
  const answers: RawAnswer[] = [];
  let rest = text;
  while (rest.startsWith("HTTP/1.1 ")) {
    const answer = parseRaw(rest);
    answers.push(answer);
    const headEnd = rest.indexOf("\r\n\r\n") + 4;
    rest = rest.slice(headEnd + Buffer.byteLength(answer.body));
  }
  assert.equal(rest, "", `bytes after the last answer: ${JSON.stringify(rest.slice(0, 80))}`);
  return answers;
}

const postText = (body: string, extra = ""): string =>
  `POST /reports HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n${extra}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

for (const variant of ["naive", ...KEYED] as VariantName[]) {
  test(`${variant}: a POST pipelined with a malformed request gets its own answer first, then the 400, then the connection closes`, () =>
    withTracker({ variant }, async (t) => {
      const key = variant === "naive" ? "" : "idempotency-key: pipelined-1\r\n";
      const text = await raw(
        t.port,
        `${postText('{"title":"pipelined"}', key)}GARBAGE / HTTP/1.1\r\n\r\n`,
      );
      const answers = answersIn(text);
      assert.deepEqual(
        answers.map((a) => a.status),
        [201, 400],
        "RFC 9112 §9.3.2: answers in the order of the requests",
      );
      assert.equal(answers[0]!.headers.location, "/reports/1");
      assert.equal(answers[1]!.headers.connection, "close");
      assert.equal(t.store.countReports(), 1);
    }));
}

test("a POST pipelined with a request whose client ends before its body: the POST's answer, then the 400 for the other, not a wait for a body that never comes", () =>
  withTracker({ variant: "fenced", headersTimeoutMs: 400, requestTimeoutMs: 800 }, async (t) => {
    const text = await raw(
      t.port,
      `${postText('{"title":"first"}', "idempotency-key: cut-1\r\n")}POST /reports HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nidempotency-key: cut-2\r\ncontent-length: 100\r\n\r\n{"title"`,
    );
    assert.deepEqual(
      answersIn(text).map((a) => a.status),
      [201, 400],
    );
    assert.equal(t.store.countReports(), 1);
  }));

test("a malformed request target is 400 in problem+json, not 500, and the tracker goes on serving", () =>
  withTracker({ variant: "fenced" }, async (t) => {
    for (const target of [
      "//:99999/",
      "http://x:99999/reports",
      "http://[::1/reports",
      "http://a%zz/",
      "//:99999/reports?title=x",
    ]) {
      for (const method of ["GET", "POST", "PUT"]) {
        const answer = parseRaw(
          await raw(
            t.port,
            `${method} ${target} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nidempotency-key: k\r\ncontent-length: 13\r\nconnection: close\r\n\r\n{"title":"x"}`,
          ),
        );
        assert.equal(answer.status, 400, `${method} ${target}`);
        assert.equal(answer.headers["content-type"], "application/problem+json");
      }
    }
    assert.equal(t.store.countReports(), 0);
    const fine = parseRaw(
      await raw(t.port, "GET /reports HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n"),
    );
    assert.equal(fine.status, 200);
  }));

test("two Host lines are 400 (RFC 9112 §3.2), on every route; so is a Host that is not a host; one is fine", () =>
  withTracker({ variant: "keyed" }, async (t) => {
    const body = '{"title":"two hosts"}';
    for (const request of [
      "GET /reports HTTP/1.1\r\nhost: x\r\nhost: y\r\n\r\n",
      "GET /reports HTTP/1.1\r\nhost: x\r\nhost: x\r\n\r\n",
      "GET /reports/1 HTTP/1.1\r\nhost: x\r\nHost: y\r\n\r\n",
      postText(body, "host: y\r\nidempotency-key: k1\r\n"),
      "GET /reports HTTP/1.1\r\nhost: a b\r\n\r\n",
      "GET /reports HTTP/1.1\r\nhost: x/y\r\n\r\n",
      "GET /reports HTTP/1.1\r\nhost: u@x\r\n\r\n",
      "GET /reports HTTP/1.1\r\nhost: x:8o\r\n\r\n",
    ]) {
      const answer = parseRaw(await raw(t.port, request));
      assert.equal(answer.status, 400, JSON.stringify(request.slice(0, 60)));
      assert.equal(answer.headers["content-type"], "application/problem+json");
      assert.match((JSON.parse(answer.body) as { detail: string }).detail, /Host/);
    }
    assert.equal(t.store.countReports(), 0);
    for (const host of ["x", "127.0.0.1:8080", "[::1]:80", "localhost:", "Example.COM"]) {
      const fine = parseRaw(
        await raw(t.port, `GET /reports HTTP/1.1\r\nhost: ${host}\r\nconnection: close\r\n\r\n`),
      );
      assert.equal(fine.status, 200, host);
    }
  }));

for (const variant of ["naive", ...KEYED] as VariantName[]) {
  test(`${variant}: a lone surrogate in a JSON string is 400, as invalid UTF-8 is, and again on retry; nothing stored`, () =>
    withTracker({ variant }, async (t) => {
      const headers: Record<string, string> =
        variant === "naive" ? {} : { "idempotency-key": "lone-1" };
      for (const text of [
        '{"title":"lone\\ud800"}',
        '{"title":"ok","body":"\\udc00 trail"}',
        '{"title":"ok","module":"a\\ud83d"}',
        '{"title":"ok","run":"\\ud83d\\ud83d\\ude00"}',
      ]) {
        for (const attempt of [1, 2]) {
          const r = await rawPost(t, text, headers);
          assert.equal(r.status, 400, `${text}, attempt ${attempt}`);
          assert.match((r.body as { detail: string }).detail, /surrogate/);
        }
      }
      // A pair is one character, and fine.
      assert.equal((await rawPost(t, '{"title":"\\ud83d\\udc1b"}', headers)).status, 201);
      assert.equal(t.store.countReports(), 1);
    }));
}

/** Another connection to the tracker's file, as another process would hold it: the write lock, taken. */
function outsideWriteLock(file: string): { release(): void } {
  const other = new DatabaseSync(file);
  other.exec("BEGIN IMMEDIATE");
  return {
    release() {
      other.exec("COMMIT");
      other.close();
    },
  };
}

test("an outside write lock on the SQLite file: reads go on at once, writes wait for it without stopping anyone, then go through", async () => {
  const dir = scratchDir();
  const file = dir.path("locked.sqlite");
  try {
    await withTracker({ variant: "fenced", db: file }, async (t) => {
      assert.equal((await post(t, { title: "before" }, { "idempotency-key": "k0" })).status, 201);
      const lock = outsideWriteLock(file);
      const settled: string[] = [];
      const writes = ["k1", "k2"].map((key) =>
        post(t, { title: key }, { "idempotency-key": key }).finally(() => settled.push(key)),
      );
      // The writes are waiting for the file; a read is answered meanwhile.
      const list = response(
        await httpCall({ method: "GET", url: `${t.url}/reports`, timeoutMs: 5_000 }),
      );
      assert.equal(list.status, 200);
      assert.equal((list.body as unknown[]).length, 1);
      const one = response(
        await httpCall({ method: "GET", url: `${t.url}/reports/1`, timeoutMs: 5_000 }),
      );
      assert.equal(one.status, 200);
      assert.deepEqual(settled, [], "no write went through, or failed, while the lock was held");
      lock.release();
      assert.deepEqual(
        (await Promise.all(writes)).map((r) => r.status),
        [201, 201],
      );
      assert.equal(t.store.countReports(), 3);
    });
  } finally {
    dir.remove();
  }
});

for (const variant of ["naive", "fenced"] as VariantName[]) {
  test(`${variant}: a write that waits longer than lockWaitMs gives up with 503 and Retry-After; nothing stored, and the retry goes through`, async () => {
    const dir = scratchDir();
    const file = dir.path("locked.sqlite");
    try {
      await withTracker({ variant, db: file, lockWaitMs: 200 }, async (t) => {
        const lock = outsideWriteLock(file);
        const busy = await post(t, { title: "waited" }, { "idempotency-key": "w1" });
        assert.equal(busy.status, 503);
        assert.equal(busy.headers["content-type"], "application/problem+json");
        assert.match(String(busy.headers["retry-after"]), /^[1-9][0-9]*$/);
        assert.match((busy.body as { detail: string }).detail, /lock/);
        lock.release();
        assert.equal(t.store.countReports(), 0);
        const again = await post(t, { title: "waited" }, { "idempotency-key": "w1" });
        assert.deepEqual([again.status, again.headers["idempotent-replayed"]], [201, undefined]);
        assert.equal(t.store.countReports(), 1);
      });
    } finally {
      dir.remove();
    }
  });
}

for (const variant of ["keyed", "fenced"] as VariantName[]) {
  test(`${variant}: a holder that outlasts its lease is told to the operator${variant === "fenced" ? ", and the 409s that follow say that the lease is shorter than the handler" : ""}`, async () => {
    let clock = 0;
    const heard: LeaseOverrun[] = [];
    const faults = new Faults({ 1: "slow", 2: "slow", 4: "slow" });
    await withTracker(
      {
        variant,
        faults,
        leaseMs: 1_000,
        now: () => clock,
        onLeaseOverrun: (o) => heard.push(o),
      },
      async (t) => {
        const key = { "idempotency-key": "slow-key" };
        const first = post(t, { title: "slow" }, key);
        await faults.reached(1, "held");
        clock = 1_001;
        // The lease ran out: the retry takes the key over, and its work is slow too.
        const second = post(t, { title: "slow" }, key);
        await faults.reached(2, "held");
        faults.release(1);
        // fenced: the late holder is fenced out and answers 409 (the new holder still works);
        // keyed: it completes the key anyway (lesson 05's duplicate), so no 409 follows.
        assert.equal((await first).status, variant === "fenced" ? 409 : 201);
        assert.deepEqual(heard, [{ requestNo: 1, heldMs: 1_001, leaseMs: 1_000 }]);
        if (variant === "fenced") {
          const busy = await post(t, { title: "slow" }, key);
          assert.equal(busy.status, 409);
          assert.match(
            (busy.body as { detail: string }).detail,
            /held a key longer than the lease \(the last, request 1, 1001 ms on a lease of 1000 ms\).*the lease must be longer than the slowest handler/,
          );
        }
        faults.release(2);
        assert.equal((await second).status, 201);
        assert.equal(heard.length, 1, "request 2 held the key 0 ms on the clock: within its lease");
        if (variant === "fenced") {
          // A minute on, a 409 no longer carries the note.
          clock += 61_000;
          const other = { "idempotency-key": "other" };
          const third = post(t, { title: "other" }, other);
          await faults.reached(4, "held");
          const again = await post(t, { title: "other" }, other);
          assert.equal(again.status, 409);
          assert.doesNotMatch((again.body as { detail: string }).detail, /Note/);
          faults.release(4);
          assert.equal((await third).status, 201);
        }
      },
    );
  });
}
