// Edge cases found by trying the tracker from outside: bytes that are not UTF-8, the id range, the
// anonymous scope, two Authorization lines, bodies that mean the same report, expired keys that
// stayed in the database, an unbounded list, and the limits the README states.
import assert from "node:assert/strict";
import { test } from "node:test";
import { httpCall } from "../lib/client/client.ts";
import { ANONYMOUS_CALLER } from "../lib/protocol/caller.ts";
import { HttpError } from "../lib/protocol/http.ts";
import { keyStoreOf } from "../lib/tracker/key-store.ts";
import { MAX_TITLE_CHARS } from "../lib/tracker/report-body.ts";
import { MAX_PAGE } from "../lib/tracker/router.ts";
import { MAX_REPORT_ID, NoReportIdLeft, ReportStore } from "../lib/tracker/store.ts";
import type { Swept } from "../lib/tracker/sweeper.ts";
import type { VariantName } from "../lib/tracker/variant.ts";
import { parseRaw, post, raw, rawPost, response, withTracker } from "./http-helpers.ts";

const KEYED: VariantName[] = ["key-after", "keyed", "fenced"];
const get = (url: string) => httpCall({ method: "GET", url, timeoutMs: 5_000 }).then(response);
const put = (url: string, body: unknown) =>
  httpCall({ method: "PUT", url, body, timeoutMs: 5_000 }).then(response);

for (const variant of ["naive", ...KEYED] as VariantName[]) {
  test(`${variant}: a body that is not UTF-8 is 400, and two such bodies never share a key's answer`, () =>
    withTracker({ variant }, async (t) => {
      const a = await rawPost(t, Buffer.from('{"title":"bad \xff"}', "latin1"), {
        "idempotency-key": "utf-a",
      });
      const b = await rawPost(t, Buffer.from('{"title":"bad \xfe"}', "latin1"), {
        "idempotency-key": "utf-a",
      });
      assert.deepEqual([a.status, b.status], [400, 400]);
      assert.equal(a.headers["content-type"], "application/problem+json");
      assert.match(String((a.body as { detail: string }).detail), /UTF-8/);
      assert.equal(t.store.countReports(), 0);
      // Valid UTF-8 beyond ASCII is fine.
      const ok = await rawPost(t, Buffer.from('{"title":"café ☕"}', "utf8"), {
        "idempotency-key": "utf-b",
      });
      assert.equal(ok.status, 201);
      assert.equal((ok.body as { title: string }).title, "café ☕");
    }));
}

test("one id range for every route: the id a POST gets after a PUT of a large id can be read back", () =>
  withTracker({ variant: "naive" }, async (t) => {
    assert.equal(
      (await put(`${t.url}/reports/999999999999999`, { title: "a large id" })).status,
      201,
    );
    const created = await post(t, { title: "the next one" });
    assert.equal(created.status, 201);
    const location = String(created.headers.location);
    assert.equal(location, "/reports/1000000000000000");
    const again = await get(`${t.url}${location}`);
    assert.equal(again.status, 200, `GET ${location} answers the report the POST created`);
  }));

test(`ids go up to ${MAX_REPORT_ID} on every route: the last id works, past it is 404, and a POST past it is 507 with nothing stored`, () =>
  withTracker({ variant: "keyed" }, async (t) => {
    assert.equal(
      (await put(`${t.url}/reports/${MAX_REPORT_ID}`, { title: "the last id" })).status,
      201,
    );
    assert.equal((await get(`${t.url}/reports/${MAX_REPORT_ID}`)).status, 200);
    assert.equal((await get(`${t.url}/reports/${MAX_REPORT_ID + 1}`)).status, 404);
    assert.equal(
      (await put(`${t.url}/reports/${MAX_REPORT_ID + 1}`, { title: "past it" })).status,
      404,
    );
    const full = await post(t, { title: "no id left" }, { "idempotency-key": "full-1" });
    assert.equal(full.status, 507);
    assert.equal(full.headers["content-type"], "application/problem+json");
    assert.equal(t.store.countReports(), 1);
  }));

test("the store says that no id is left in its own terms (NoReportIdLeft), not in HTTP's: the service makes it a 507", () => {
  const store = new ReportStore(":memory:");
  try {
    store.transaction(() => store.putReport(MAX_REPORT_ID, { title: "the last id" }));
    assert.throws(
      () => store.transaction(() => store.insertReport({ title: "no id left" })),
      (err: unknown) => err instanceof NoReportIdLeft && !(err instanceof HttpError),
    );
    assert.equal(store.countReports(), 1);
  } finally {
    store.close();
  }
});

for (const variant of KEYED) {
  test(`${variant}: "Authorization: Bearer anonymous" is a caller of its own, not the scope of callers without the header`, () =>
    withTracker({ variant }, async (t) => {
      const nobody = await post(t, { title: "x" }, { "idempotency-key": "k-1" });
      const named = await post(
        t,
        { title: "x" },
        { "idempotency-key": "k-1", authorization: "Bearer anonymous" },
      );
      assert.deepEqual([nobody.status, named.status], [201, 201]);
      assert.equal(
        named.headers["idempotent-replayed"],
        undefined,
        "not the anonymous scope's replay",
      );
      assert.equal(t.store.countReports(), 2);
    }));

  test(`${variant}: "module": null and "body": "" are the report without them: the same request, replayed, not 422`, () =>
    withTracker({ variant }, async (t) => {
      const first = await post(
        t,
        { title: "Login button does nothing" },
        { "idempotency-key": "k-2" },
      );
      const withNull = await post(
        t,
        { title: "Login button does nothing", module: null, run: null, body: "" },
        { "idempotency-key": "k-2" },
      );
      assert.equal(first.status, 201);
      assert.equal(withNull.status, 201, `got ${withNull.status}`);
      assert.equal(withNull.headers["idempotent-replayed"], "true");
      assert.deepEqual(withNull.body, first.body);
      // A field that does change the report is still another request.
      const other = await post(
        t,
        { title: "Login button does nothing", module: "auth" },
        { "idempotency-key": "k-2" },
      );
      assert.equal(other.status, 422);
      assert.equal(t.store.countReports(), 1);
    }));
}

for (const variant of ["naive", ...KEYED] as VariantName[]) {
  test(`${variant}: two Authorization lines are 400 (which caller would it be?), one is fine`, () =>
    withTracker({ variant }, async (t) => {
      const two = await rawPost(t, '{"title":"x"}', {
        "idempotency-key": "k-3",
        authorization: ["Bearer alice", "Bearer bob"],
      });
      assert.equal(two.status, 400);
      assert.match(String((two.body as { detail: string }).detail), /Authorization/);
      assert.equal(t.store.countReports(), 0);
      assert.equal(
        (await post(t, { title: "x" }, { "idempotency-key": "k-3", authorization: "Bearer alice" }))
          .status,
        201,
      );
    }));
}

for (const variant of KEYED) {
  test(`${variant}: expired keys are deleted in small batches, off the request path (an injected clock)`, async () => {
    let clock = 1_000;
    const sweeps: Swept[] = [];
    await withTracker(
      {
        variant,
        now: () => clock,
        ttlMs: 10_000,
        sweepBatch: 2,
        sweepEveryMs: 0,
        onSweep: (s) => sweeps.push(s),
      },
      async (t) => {
        for (let i = 0; i < 5; i++)
          assert.equal(
            (await post(t, { title: `r${i}` }, { "idempotency-key": `old-${i}` })).status,
            201,
          );
        clock = 6_000;
        assert.equal(
          (await post(t, { title: "young" }, { "idempotency-key": "young" })).status,
          201,
        );
        const keys = keyStoreOf(t.store);
        assert.equal(keys.count(), 6);
        assert.deepEqual(
          await t.sweepExpiredKeys(),
          { deleted: 0, batches: 1 },
          "nothing has expired yet",
        );
        clock = 11_000; // the five old keys expire now; the young one at 16 000
        assert.deepEqual(await t.sweepExpiredKeys(), { deleted: 5, batches: 3 }, "2 + 2 + 1");
        assert.equal(keys.count(), 1);
        assert.equal(keys.get(ANONYMOUS_CALLER, "young")?.key, "young");
        assert.deepEqual(sweeps, [{ deleted: 5, batches: 3 }]);
        // A deleted key is new again: its request is a new operation.
        assert.equal(t.store.countReports(), 6);
        const again = await post(t, { title: "r0" }, { "idempotency-key": "old-0" });
        assert.equal(again.headers["idempotent-replayed"], undefined);
        assert.equal(t.store.countReports(), 7);
      },
    );
  });
}

test("the sweep runs by itself every sweepEveryMs", async () => {
  let clock = 0;
  let swept!: (s: Swept) => void;
  const first = new Promise<Swept>((resolve) => (swept = resolve));
  await withTracker(
    { variant: "keyed", now: () => clock, ttlMs: 100, sweepEveryMs: 5, onSweep: (s) => swept(s) },
    async (t) => {
      assert.equal((await post(t, { title: "x" }, { "idempotency-key": "k" })).status, 201);
      clock = 100;
      assert.deepEqual(await first, { deleted: 1, batches: 1 });
      assert.equal(keyStoreOf(t.store).count(), 0);
    },
  );
});

test(`GET /reports: at most ${MAX_PAGE} at a time, oldest first, with a Link to the next page`, () =>
  withTracker({ variant: "naive" }, async (t) => {
    t.store.transaction(() => {
      for (let i = 1; i <= 250; i++)
        t.store.insertReport({ title: i % 2 === 0 ? "even" : `odd ${i}` });
    });
    const pages: number[][] = [];
    let next: string | undefined = "/reports";
    while (next !== undefined) {
      const page = await get(`${t.url}${next}`);
      assert.equal(page.status, 200);
      pages.push((page.body as { id: number }[]).map((r) => r.id));
      const link = page.headers.link as string | undefined;
      next = link === undefined ? undefined : /^<([^>]+)>; rel="next"$/.exec(link)?.[1];
      if (link !== undefined) assert.ok(next, `a Link of the form <…>; rel="next": ${link}`);
    }
    assert.deepEqual(
      pages.map((p) => p.length),
      [100, 100, 50],
    );
    assert.deepEqual(
      pages.flat(),
      Array.from({ length: 250 }, (_, i) => i + 1),
    );

    const small = await get(`${t.url}/reports?limit=3&after=10`);
    assert.deepEqual(
      (small.body as { id: number }[]).map((r) => r.id),
      [11, 12, 13],
    );
    assert.equal(small.headers.link, '</reports?limit=3&after=13>; rel="next"');
    const byTitle = await get(`${t.url}/reports?title=EVEN&limit=2&after=100`);
    assert.deepEqual(
      (byTitle.body as { id: number }[]).map((r) => r.id),
      [102, 104],
    );
    assert.equal(byTitle.headers.link, '</reports?title=EVEN&limit=2&after=104>; rel="next"');
    const last = await get(`${t.url}/reports?after=249`);
    assert.deepEqual(
      (last.body as { id: number }[]).map((r) => r.id),
      [250],
    );
    assert.equal(last.headers.link, undefined);

    for (const bad of [
      "limit=0",
      `limit=${MAX_PAGE + 1}`,
      "limit=x",
      "limit=1.5",
      "after=-1",
      "after=x",
      "limit=1&limit=2",
    ]) {
      const r = await get(`${t.url}/reports?${bad}`);
      assert.equal(r.status, 400, bad);
      assert.equal(r.headers["content-type"], "application/problem+json");
    }
  }));

test("an HTTP/1.1 request with no Host header is 400 in problem+json", () =>
  withTracker({ variant: "naive" }, async (t) => {
    const answer = parseRaw(await raw(t.port, "GET /reports HTTP/1.1\r\n\r\n"));
    assert.equal(answer.status, 400);
    assert.equal(answer.headers["content-type"], "application/problem+json");
    assert.match((JSON.parse(answer.body) as { detail: string }).detail, /Host/);
  }));

test("1000 header lines are served, 1001 are 431 in problem+json (the README's limit)", () =>
  withTracker({ variant: "naive" }, async (t) => {
    const request = (lines: number): string =>
      `GET /reports HTTP/1.1\r\nhost: x\r\n${Array.from({ length: lines - 1 }, (_, i) => `x-${i}: y\r\n`).join("")}\r\n`;
    assert.equal(parseRaw(await raw(t.port, request(1000))).status, 200);
    const over = parseRaw(await raw(t.port, request(1001)));
    assert.equal(over.status, 431);
    assert.equal(over.headers["content-type"], "application/problem+json");
  }));

test(`titles are counted in characters (code points): ${MAX_TITLE_CHARS} emoji are fine, ${MAX_TITLE_CHARS + 1} are not`, () =>
  withTracker({ variant: "naive" }, async (t) => {
    assert.equal(
      (await post(t, { title: "🐛".repeat(300) })).status,
      201,
      "300 emoji (600 UTF-16 units)",
    );
    assert.equal((await post(t, { title: "🐛".repeat(MAX_TITLE_CHARS) })).status, 201);
    assert.equal((await post(t, { title: "🐛".repeat(MAX_TITLE_CHARS + 1) })).status, 400);
    assert.equal((await post(t, { title: "t".repeat(MAX_TITLE_CHARS + 1) })).status, 400);
  }));
