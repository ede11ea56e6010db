// Lesson 09's machinery: the faulty server, the analysis of its logs, the measuring harness, and
// real libraries end to end. Events are ordered by the server's gates (arrived, read, ended), never
// by sleeps.
import assert from "node:assert/strict";
import { request } from "node:http";
import { test } from "node:test";
import {
  attemptsCell,
  changingHeaders,
  gapsCell,
  gapsMs,
  jitter,
  keyUse,
  medianGaps,
  ms,
  type Observation,
  postsProcessed,
  retryAfterSecondsFor,
  retryAfterVerdict,
} from "../../lib/http-clients/analysis.ts";
import {
  ATTEMPT_CAP,
  BASE_CASES,
  baseCase,
  measureRepeats,
  observe,
} from "../../lib/http-clients/measure.ts";
import type { Probe, ProbeRequest } from "../../lib/http-clients/probe.ts";
import { axiosProbe } from "../../lib/http-clients/probes/axios.ts";
import { findProbe, PROBES } from "../../lib/http-clients/probes/index.ts";
import { openaiProbe } from "../../lib/http-clients/probes/openai.ts";
import { UNDICI_MIN_TIMEOUT, undiciProbe } from "../../lib/http-clients/probes/undici.ts";
import {
  type LoggedAttempt,
  retryAfterHeader,
  startFaultyServer,
} from "../../lib/http-clients/server.ts";
import { runTs, tableRow } from "../run-helpers.ts";

/** One raw HTTP exchange with node:http, reporting what the client saw. */
function send(url: string, method: string, body?: string, signal?: AbortSignal) {
  return new Promise<
    { status: number; headers: Record<string, unknown>; body: string } | { error: string }
  >((resolve) => {
    const req = request(url, { method, agent: false, ...(signal ? { signal } : {}) }, (res) => {
      let text = "";
      res.on("data", (c: Buffer) => (text += c.toString()));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }),
      );
    });
    req.on("error", (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.name }));
    req.end(body);
  });
}

// ---- the faulty server ----

test("faulty server: a status with Retry-After in seconds, then 200; every attempt logged with its headers", async () => {
  const server = await startFaultyServer();
  try {
    const run = server.open((n) =>
      n === 1 ? { kind: "status", status: 503, retryAfter: { seconds: 1 } } : { kind: "ok" },
    );
    const first = await send(`${run.url}/reports`, "GET");
    assert.ok("status" in first);
    assert.equal(first.status, 503);
    assert.equal(first.headers["retry-after"], "1");
    const second = await send(`${run.url}/reports`, "POST", '{"title":"t"}');
    assert.ok("status" in second);
    assert.equal(second.status, 200);
    assert.deepEqual(
      run.log.map((a) => [a.n, a.method, a.path, a.answer]),
      [
        [1, "GET", "/reports", "503 Retry-After: 1"],
        [2, "POST", "/reports", "200"],
      ],
    );
    assert.equal(run.log[1]!.bodyBytes, 13);
    assert.ok(run.log.every((a) => a.endedAt !== undefined && a.endedAt >= a.arrivedAt));
  } finally {
    await server.close();
  }
});

test("faulty server: Retry-After as an HTTP-date, in whole seconds, at least the asked delay ahead", async () => {
  const now = Date.UTC(2026, 0, 2, 3, 4, 5, 600);
  const ra = retryAfterHeader({ dateSecondsAhead: 2 }, now);
  assert.equal(ra.header, "Fri, 02 Jan 2026 03:04:08 GMT");
  assert.equal(ra.dateWall, Date.UTC(2026, 0, 2, 3, 4, 8));
  assert.equal(retryAfterHeader({ seconds: 3 }, now).header, "3");

  const server = await startFaultyServer();
  try {
    const run = server.open(() => ({
      kind: "status",
      status: 429,
      retryAfter: { dateSecondsAhead: 1 },
    }));
    const res = await send(`${run.url}/x`, "GET");
    assert.ok("status" in res);
    assert.equal(res.status, 429);
    const date = Date.parse(String(res.headers["retry-after"]));
    assert.equal(date % 1000, 0);
    assert.equal(date, run.log[0]!.retryAfter!.dateWall);
    assert.ok(date >= run.log[0]!.arrivedWall + 1000);
  } finally {
    await server.close();
  }
});

test("faulty server: a plain 429 has no Retry-After; an unknown run is 404 and logs nothing", async () => {
  const server = await startFaultyServer();
  try {
    const run = server.open(() => ({ kind: "status", status: 429 }));
    const res = await send(`${run.url}/`, "GET");
    assert.ok("status" in res);
    assert.equal(res.status, 429);
    assert.equal(res.headers["retry-after"], undefined);
    const stray = await send(`${server.url}/run/999/x`, "GET");
    assert.ok("status" in stray);
    assert.equal(stray.status, 404);
    assert.equal(run.log.length, 1);
  } finally {
    await server.close();
  }
});

test("faulty server: reset reads the whole body, then the client sees ECONNRESET and no answer", async () => {
  const server = await startFaultyServer();
  try {
    const run = server.open(() => ({ kind: "reset" }));
    const body = JSON.stringify({ title: "Login button does nothing" });
    const res = await send(`${run.url}/reports`, "POST", body);
    assert.deepEqual(res, { error: "ECONNRESET" });
    assert.equal(run.log[0]!.bodyBytes, Buffer.byteLength(body));
    assert.equal(postsProcessed(run.log), 1);
    await run.ended(1);
  } finally {
    await server.close();
  }
});

test("faulty server: hang reads the body and never answers; the attempt ends when the client leaves", async () => {
  const server = await startFaultyServer();
  try {
    const run = server.open(() => ({ kind: "hang" }));
    const controller = new AbortController();
    let answered = false;
    const res = send(`${run.url}/reports`, "POST", "{}", controller.signal).then((r) => {
      answered = true;
      return r;
    });
    await run.read(1);
    assert.equal(answered, false);
    assert.equal(run.log[0]!.endedAt, undefined);
    controller.abort();
    await run.ended(1);
    assert.ok("error" in (await res));
    assert.ok(run.log[0]!.endedAt! >= run.log[0]!.arrivedAt);
  } finally {
    await server.close();
  }
});

test("faulty server: runs are independent; each numbers its own attempts", async () => {
  const server = await startFaultyServer();
  try {
    const a = server.open((n) => (n < 2 ? { kind: "status", status: 503 } : { kind: "ok" }));
    const b = server.open(() => ({ kind: "ok" }));
    await send(`${a.url}/`, "GET");
    await send(`${b.url}/`, "GET");
    await send(`${a.url}/`, "GET");
    assert.deepEqual(
      a.log.map((x) => `${x.n}:${x.answer}`),
      ["1:503", "2:200"],
    );
    assert.deepEqual(
      b.log.map((x) => `${x.n}:${x.answer}`),
      ["1:200"],
    );
  } finally {
    await server.close();
  }
});

// ---- the analysis, on synthetic logs ----

function attempt(n: number, arrivedAt: number, extra: Partial<LoggedAttempt> = {}): LoggedAttempt {
  return {
    n,
    method: "GET",
    path: "/reports",
    headers: {},
    arrivedAt,
    arrivedWall: 1_000_000 + arrivedAt,
    bodyBytes: 0,
    answer: "503",
    endedAt: arrivedAt + 1,
    ...extra,
  };
}
const log = (...arrivals: number[]): LoggedAttempt[] => arrivals.map((t, i) => attempt(i + 1, t));

test("gaps run from the end of one attempt to the arrival of the next; medians per retry", () => {
  assert.deepEqual(gapsMs(log(0, 101, 302)), [100, 200]);
  assert.deepEqual(gapsMs(log(0)), []);
  assert.deepEqual(medianGaps([log(0, 101, 302), log(0, 111), log(0, 91, 292)]), [100, 200]);
  assert.equal(gapsCell([log(0, 101, 302)]), "100, 200 ms");
  assert.equal(gapsCell([log(0, 3, 8, 17, 34, 67, 132)]), "2, 4, 8 … 64 ms");
  assert.equal(gapsCell([log(0)]), "–");
});

test("a wait reads in ms below a second and in seconds from a second, rounded before the unit is chosen", () => {
  assert.equal(ms(85.4), "85 ms");
  assert.equal(ms(999.4), "999 ms");
  assert.equal(ms(999.6), "1.0 s", "rounds to 1000 ms: a second");
  assert.equal(ms(1949), "1.9 s");
  assert.equal(ms(9960), "10 s", "rounds to 10.0 s: ten seconds, written as the longer waits are");
  assert.equal(ms(12_400), "12 s");
});

test("jitter: gaps that differ across runs are jitter; one late run is not", () => {
  const steady = [log(0, 101), log(0, 102), log(0, 100), log(0, 101), log(0, 180)];
  assert.deepEqual(jitter(steady), { jitters: false, spreadMs: 2 });
  const spread = [log(0, 401), log(0, 461), log(0, 431), log(0, 490), log(0, 380)];
  assert.equal(jitter(spread)?.jitters, true);
  assert.equal(jitter(spread)?.spreadMs, 81, "the slowest run (489 ms) is left out: 460 − 379");
  assert.equal(jitter([log(0), log(0), log(0)]), undefined, "no retry, nothing to compare");
});

test("Retry-After to ask: 1 s, unless the client's own first wait is near a second", () => {
  assert.equal(retryAfterSecondsFor(undefined), 1);
  assert.equal(retryAfterSecondsFor(500), 1);
  assert.equal(retryAfterSecondsFor(1100), 2);
});

test("Retry-After verdicts: honoured, ignored, not retried, still waiting", () => {
  const asked = (header: string, dateWall?: number) => ({
    retryAfter: { header, ...(dateWall === undefined ? {} : { dateWall }) },
  });
  const obs = (attempts: LoggedAttempt[], stopped?: Observation["stopped"]): Observation => ({
    log: attempts,
    outcome: { ok: true },
    ...(stopped ? { stopped } : {}),
  });
  // Seconds: the wait counts from the end of the answer that asked.
  assert.deepEqual(retryAfterVerdict(obs([attempt(1, 0, asked("1")), attempt(2, 1001)]), 2000), {
    kind: "honoured",
    waitedMs: 1000,
  });
  assert.deepEqual(retryAfterVerdict(obs([attempt(1, 0, asked("1")), attempt(2, 451)]), 2000), {
    kind: "ignored",
    waitedMs: 450,
  });
  // A date: compared in wall-clock time with the date sent.
  const date = 1_000_000 + 1500;
  assert.equal(
    retryAfterVerdict(obs([attempt(1, 0, asked("(a date)", date)), attempt(2, 1500)]), 2000).kind,
    "honoured",
  );
  assert.equal(
    retryAfterVerdict(obs([attempt(1, 0, asked("(a date)", date)), attempt(2, 900)]), 2000).kind,
    "ignored",
  );
  assert.deepEqual(retryAfterVerdict(obs([attempt(1, 0, asked("3600"))]), 2000), {
    kind: "not-retried",
  });
  assert.deepEqual(retryAfterVerdict(obs([attempt(1, 0, asked("3600"))], "window"), 2000), {
    kind: "waiting",
    windowMs: 2000,
  });
});

test("keys and retry markers: none, the same key, a new key each time, a header that counts", () => {
  const withHeaders = (...hs: Record<string, string>[]) =>
    hs.map((headers, i) => attempt(i + 1, i * 10, { headers }));
  assert.deepEqual(keyUse(withHeaders({}, {})), { kind: "none" });
  assert.equal(
    keyUse(withHeaders({ "idempotency-key": '"k1"' }, { "idempotency-key": '"k1"' })).kind,
    "same",
  );
  assert.equal(
    keyUse(withHeaders({ "idempotency-key": "a" }, { "idempotency-key": "b" })).kind,
    "changes",
  );
  assert.equal(keyUse(withHeaders({ "idempotency-key": "a" }, {})).kind, "not on every attempt");
  assert.deepEqual(
    changingHeaders(
      withHeaders(
        { "x-stainless-retry-count": "0", host: "h" },
        { "x-stainless-retry-count": "1", host: "h" },
      ),
    ),
    [{ name: "x-stainless-retry-count", values: ["0", "1"] }],
  );
  assert.deepEqual(changingHeaders(withHeaders({ a: "1" })), []);
});

test("attempt counts and reports filed", () => {
  const posts = [
    attempt(1, 0, { method: "POST", bodyBytes: 50 }),
    attempt(2, 5, { method: "POST", bodyBytes: 50 }),
    attempt(3, 9, { method: "POST", bodyBytes: 0 }),
  ];
  assert.equal(postsProcessed(posts), 2);
  assert.equal(attemptsCell({ log: posts, outcome: { ok: true } }), "3");
  assert.equal(
    attemptsCell({ log: posts, outcome: { ok: false, error: "x" }, stopped: "cap" }),
    "≥3 (stopped)",
  );
});

// ---- the harness, with probes of our own ----

/** A probe that retries at once, for ever, until its signal is fired. */
const forever: Probe = {
  name: "forever",
  packages: [],
  config: [],
  timeoutOption: "",
  safe: "",
  defaultTimeout: () => ({ text: "", source: "" }),
  async send(req: ProbeRequest) {
    for (;;) {
      const res = await fetch(req.base + req.path, { signal: req.signal });
      await res.arrayBuffer();
      if (res.ok) return;
    }
  },
};

test("observe stops a client that would retry for ever at the attempt cap, and says so", async () => {
  const server = await startFaultyServer();
  try {
    const o = await observe(server, forever, baseCase("get-503", "k"));
    assert.equal(o.stopped, "cap");
    assert.equal(o.log.length, ATTEMPT_CAP);
    assert.equal(o.outcome.ok, false);
    assert.equal(attemptsCell(o), `≥${ATTEMPT_CAP} (stopped)`);
  } finally {
    await server.close();
  }
});

test("observe stops a client still waiting after the window, and records it as waiting", async () => {
  const server = await startFaultyServer();
  try {
    const patient: Probe = {
      ...forever,
      async send(req) {
        await fetch(req.base + req.path, { signal: req.signal }).then((r) => r.arrayBuffer());
        await new Promise((_, reject) =>
          req.signal.addEventListener("abort", () => reject(req.signal.reason)),
        );
      },
    };
    const o = await observe(server, patient, {
      method: "GET",
      script: () => ({ kind: "status", status: 503, retryAfter: { seconds: 3600 } }),
      windowMs: 30,
    });
    assert.equal(o.stopped, "window");
    assert.deepEqual(retryAfterVerdict(o, 30), { kind: "waiting", windowMs: 30 });
  } finally {
    await server.close();
  }
});

test("every probe has a unique name and is found by name or package; every case is defined", async () => {
  assert.equal(new Set(PROBES.map((p) => p.name)).size, PROBES.length);
  assert.equal(findProbe("@anthropic-ai/sdk")?.name, "anthropic");
  assert.equal(findProbe("axios-retry")?.name, "axios");
  assert.equal(findProbe("requests"), undefined);
  for (const id of BASE_CASES) assert.ok(baseCase(id, "k").script(1));
  for (const p of PROBES)
    assert.doesNotMatch(
      (await p.defaultTimeout()).text,
      /^\?/,
      `${p.name}: default timeout not found in its source`,
    );
});

// ---- real libraries, end to end ----

test("undici RetryAgent: GET 503 is retried 5 times with doubling waits; POST 503 and POST reset are not retried", async () => {
  const server = await startFaultyServer();
  try {
    const get = await observe(server, undiciProbe, baseCase("get-503", "k"));
    assert.equal(get.log.length, 6);
    for (const [i, g] of gapsMs(get.log).entries())
      assert.ok(g >= UNDICI_MIN_TIMEOUT * 2 ** i - 2, `gap ${i + 1} was ${g} ms`);
    const post = await observe(server, undiciProbe, baseCase("post-503", "k"));
    assert.equal(post.log.length, 1);
    const reset = await observe(server, undiciProbe, baseCase("post-reset", "k"));
    assert.equal(postsProcessed(reset.log), 1);
    const getReset = await observe(server, undiciProbe, baseCase("get-reset", "k"));
    assert.equal(getReset.log.length, 6);
  } finally {
    await server.close();
  }
});

test("axios-retry resends a POST after a reset connection (any method on a network error), but not after a 503", async () => {
  const server = await startFaultyServer();
  try {
    assert.equal(
      postsProcessed((await observe(server, axiosProbe, baseCase("post-reset", "k"))).log),
      4,
    );
    assert.equal((await observe(server, axiosProbe, baseCase("post-503", "k"))).log.length, 1);
    const keyed = await observe(server, axiosProbe, baseCase("post-reset-keyed", "k-1"));
    assert.deepEqual(keyUse(keyed.log), {
      kind: "same",
      header: "idempotency-key",
      values: Array(4).fill('"k-1"'),
    });
  } finally {
    await server.close();
  }
});

test("OpenAI SDK: a POST whose answer is lost is sent 3 times, counted by x-stainless-retry-count, with no Idempotency-Key", async () => {
  const server = await startFaultyServer();
  try {
    const o = await observe(server, openaiProbe, baseCase("post-reset", "k"));
    assert.equal(postsProcessed(o.log), 3);
    assert.deepEqual(keyUse(o.log), { kind: "none" });
    assert.deepEqual(
      o.log.map((a) => a.headers["x-stainless-retry-count"]),
      ["0", "1", "2"],
    );
  } finally {
    await server.close();
  }
});

test("measureRepeats runs the GET 503 case several times for the jitter check", async () => {
  const server = await startFaultyServer();
  try {
    const runs = await measureRepeats(server, undiciProbe);
    assert.ok(runs.length >= 3);
    assert.ok(runs.every((r) => r.log.length === 6));
    assert.ok(jitter(runs.map((r) => r.log)) !== undefined);
  } finally {
    await server.close();
  }
});

// ---- the lesson ----

test("lesson 09 --only undici prints the measured row; a bad --only exits 2 with one line", async () => {
  const ran = await runTs(["lessons/09-your-http-client.ts", "--only", "undici"], {
    timeoutMs: 60_000,
  });
  assert.equal(ran.stderr, "");
  assert.equal(ran.code, 0);
  assert.deepEqual(tableRow(ran.stdout, "undici"), ["undici", "6", "6", "6", "1", "1", "1", "1"]);
  assert.doesNotMatch(ran.stdout, /^\s*got\s+│/m, "only the chosen library is measured");
  const bad = await runTs(["lessons/09-your-http-client.ts", "--only", "requests"]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /^error: --only takes one of fetch, undici/);
  assert.equal(bad.stderr.trim().split("\n").length, 1);
});
