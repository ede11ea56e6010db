// `npm run tracker`: the standalone tracker, checked from outside like any HTTP client would: it
// starts and prints its URL, serves the API (bad inputs included), logs a line per request, stops
// cleanly on SIGTERM, dies for real on a crash fault, and refuses bad flags with exit code 2.
import assert from "node:assert/strict";
import { type ChildProcessByStdio, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { after, test } from "node:test";
import { httpCall, type Outcome } from "../lib/client/client.ts";
import { ROOT } from "../lib/runner/catalog.ts";
import { childEnv } from "../lib/runner/exercise-run.ts";
import { runTs } from "./run-helpers.ts";

const CLI = "lib/tracker/cli.ts";
const dir = mkdtempSync(join(tmpdir(), "tracker-cli-test-"));
after(() => rmSync(dir, { recursive: true, force: true }));

interface Running {
  url: string;
  port: number;
  proc: ChildProcessByStdio<null, Readable, Readable>;
  stdout: () => string;
  stderr: () => string;
  ended: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts the CLI and resolves once it has printed its URL. */
async function startCli(args: string[]): Promise<Running> {
  const proc = spawn(process.execPath, ["--import", "tsx", CLI, ...args], {
    cwd: ROOT,
    env: childEnv({ NO_COLOR: "1" }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  proc.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.on("close", (code, signal) => resolve({ code, signal })),
  );
  const url = await new Promise<string>((resolve, reject) => {
    proc.stdout.on("data", (c: Buffer) => {
      stdout += c.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
      if (m) resolve(m[1]!);
    });
    void ended.then(() =>
      reject(new Error(`the tracker ended before listening: ${stdout}${stderr}`)),
    );
  });
  return {
    url,
    port: Number(new URL(url).port),
    proc,
    stdout: () => stdout,
    stderr: () => stderr,
    ended,
  };
}

async function stopCli(
  r: Running,
): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  r.proc.kill("SIGTERM");
  return r.ended;
}

type Response = Extract<Outcome, { kind: "response" }>;
async function post(
  url: string,
  body: unknown,
  headers: Record<string, string | string[]> = {},
): Promise<Response> {
  const o = await httpCall({
    method: "POST",
    url: `${url}/reports`,
    body,
    headers,
    timeoutMs: 10_000,
  });
  assert.equal(o.kind, "response", JSON.stringify(o));
  return o as Response;
}

/** Raw bytes in, raw answer out: for what a polite client would not send. */
function raw(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ port, host: "127.0.0.1" });
    let out = "";
    socket.on("data", (c) => (out += c.toString()));
    socket.on("close", () => resolve(out));
    socket.on("error", reject);
    socket.end(text);
  });
}

const report = { title: "Login button does nothing", module: "auth" };

test("tracker --variant keyed: serves the API, replays, refuses bad input, logs a line per request, stops on SIGTERM", async () => {
  const t = await startCli(["--variant", "keyed"]);
  let stopped = false;
  try {
    const first = await post(t.url, report, { "idempotency-key": '"abc-123"' });
    assert.equal(first.status, 201);
    assert.match(String(first.headers.location), /^\/reports\/\d+$/);
    const again = await post(
      t.url,
      { module: "auth", title: "Login button does nothing" },
      { "idempotency-key": "abc-123" },
    );
    assert.equal(again.status, 201);
    assert.equal(again.headers["idempotent-replayed"], "true");
    assert.equal(
      (await post(t.url, { title: "other" }, { "idempotency-key": "abc-123" })).status,
      422,
    );
    assert.equal((await post(t.url, report)).status, 400);
    assert.equal((await post(t.url, report, { "idempotency-key": ["a", "b"] })).status, 400);
    assert.equal((await post(t.url, report, { "idempotency-key": "k".repeat(256) })).status, 400);
    assert.equal(
      (await post(t.url, report, { "idempotency-key": "x", "content-type": "text/plain" })).status,
      415,
    );
    const badJson = await raw(
      t.port,
      'POST /reports HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nidempotency-key: "j"\r\ncontent-length: 5\r\nconnection: close\r\n\r\n{nope',
    );
    assert.match(badJson, /^HTTP\/1\.1 400 [\s\S]*application\/problem\+json/);
    const tooBig = await raw(
      t.port,
      `POST /reports HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nidempotency-key: big\r\ncontent-length: 10000000\r\n\r\n{}`,
    );
    assert.match(tooBig, /^HTTP\/1\.1 413 /);
    assert.match(await raw(t.port, "NOT HTTP\r\n\r\n"), /^HTTP\/1\.1 400 /);
    const list = await httpCall({ method: "GET", url: `${t.url}/reports`, timeoutMs: 10_000 });
    assert.equal(
      list.kind === "response" && (list.body as unknown[]).length,
      1,
      "one report after all that",
    );

    const lines = t
      .stdout()
      .split("\n")
      .filter((l) => /^#\d+ /.test(l));
    assert.ok(lines.length >= 9, t.stdout());
    assert.match(lines[0]!, /^#1 POST \/reports → 201 {2}Idempotency-Key: "abc-123" {2}\d+ ms$/);
    assert.match(lines[1]!, /^#2 POST \/reports → 201 \(replayed\) {2}Idempotency-Key: abc-123/);

    const end = await stopCli(t);
    stopped = true;
    assert.deepEqual(end, { code: 0, signal: null });
    assert.match(t.stdout(), /stopped \(SIGTERM\)\n$/);
    assert.equal(t.stderr(), "");
  } finally {
    if (!stopped) await stopCli(t);
  }
});

test("tracker --fault slow@1 --verbose: 409 with Retry-After while request #1 is held, a replay once it is done", async () => {
  // Nobody can open a standalone tracker's gate, so it lets a held request go after --hold-ms: long
  // beside the few milliseconds the second request takes once the log shows #1 held.
  const t = await startCli([
    "--variant",
    "keyed",
    "--fault",
    "slow@1",
    "--hold-ms",
    "1000",
    "--lease-ms",
    "60000",
    "--verbose",
  ]);
  try {
    const first = post(t.url, report, { "idempotency-key": "k" });
    await waitFor(() => /#1 server +handler started, then stalls/.test(t.stdout()));
    const busy = await post(t.url, report, { "idempotency-key": "k" });
    assert.equal(busy.status, 409);
    assert.match(String(busy.headers["retry-after"]), /^\d+$/);
    assert.match(String(busy.headers["retry-after-ms"]), /^\d+$/);
    assert.equal((await first).status, 201);
    assert.equal(
      (await post(t.url, report, { "idempotency-key": "k" })).headers["idempotent-replayed"],
      "true",
    );
  } finally {
    await stopCli(t);
  }
});

test("tracker --variant fenced --fault pause-past-lease@1: the retry takes the key over; the paused holder wakes, stores nothing, replays", async () => {
  // A 1 ms lease on the real clock: the retries get 409 until it has run out (a condition the loop
  // waits for, whatever the machine's speed), then one takes over. #1 is held for a minute, unless
  // the take-over wakes it: the test ending in seconds is the proof that it did.
  const t = await startCli([
    "--variant",
    "fenced",
    "--fault",
    "pause-past-lease@1",
    "--hold-ms",
    "60000",
    "--lease-ms",
    "1",
    "--verbose",
  ]);
  try {
    const holder = post(t.url, report, { "idempotency-key": "k" });
    await waitFor(() => /#1 server +handler started, then stalls/.test(t.stdout()));
    let retry: Response;
    do retry = await post(t.url, report, { "idempotency-key": "k" });
    while (retry.status === 409);
    assert.equal(retry.status, 201);
    assert.equal(retry.headers["idempotent-replayed"], undefined, "the take-over did the work");
    const late = await holder;
    assert.equal(late.status, 201);
    assert.equal(late.headers["idempotent-replayed"], "true");
    assert.deepEqual(late.body, retry.body);
    assert.match(t.stdout(), /TAKE OVER \(lease ran out\) key k as in_progress, fence 2 \(was 1\)/);
    assert.match(
      t.stdout(),
      /#1 database +INSERT report \d+, UPDATE key k completed WHERE fence = 1: 0 rows · ROLLBACK/,
    );
    const list = await httpCall({ method: "GET", url: `${t.url}/reports`, timeoutMs: 10_000 });
    assert.equal(list.kind === "response" && (list.body as unknown[]).length, 1);
  } finally {
    await stopCli(t);
  }
});

test("tracker --lease-ms shorter than the handler: the log tells the operator, once per request that held its key past the lease", async () => {
  const t = await startCli([
    "--variant",
    "fenced",
    "--fault",
    "slow@1",
    "--hold-ms",
    "300",
    "--lease-ms",
    "50",
  ]);
  try {
    assert.equal((await post(t.url, report, { "idempotency-key": "k" })).status, 201);
    await waitFor(() => /#1 held its key \d+ ms, longer than its lease of 50 ms/.test(t.stdout()));
    // The log wraps between words at the width it writes to: read it as one line.
    assert.match(t.stdout().replace(/\s+/g, " "), /Raise --lease-ms above the slowest handler/);
    assert.equal((await post(t.url, report, { "idempotency-key": "k2" })).status, 201);
    assert.equal(t.stdout().match(/held its key/g)?.length, 1, "#2 was quick: within its lease");
  } finally {
    await stopCli(t);
  }
});

/** Checks `cond` every 10 ms until it holds (a condition, not a guess at how long something takes). */
async function waitFor(cond: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) assert.fail("the condition never held");
    await new Promise((r) => setTimeout(r, 10));
  }
}

test("tracker --fault crash-between-commits@1: the process dies by SIGKILL; restarted on the same --db, key-after files twice", async () => {
  const db = join(dir, "crash.sqlite");
  const a = await startCli([
    "--variant",
    "key-after",
    "--db",
    db,
    "--fault",
    "crash-between-commits@1",
  ]);
  const lost = await httpCall({
    method: "POST",
    url: `${a.url}/reports`,
    body: report,
    headers: { "idempotency-key": "k" },
    timeoutMs: 10_000,
  });
  assert.equal(lost.kind, "error");
  assert.equal((await a.ended).signal, "SIGKILL");
  const b = await startCli(["--variant", "key-after", "--db", db, "--port", String(a.port)]);
  try {
    assert.equal(b.url, a.url);
    const retry = await post(b.url, report, { "idempotency-key": "k" });
    assert.equal(retry.status, 201);
    assert.equal(retry.headers["idempotent-replayed"], undefined);
    const list = await httpCall({ method: "GET", url: `${b.url}/reports`, timeoutMs: 10_000 });
    assert.equal(list.kind === "response" && (list.body as unknown[]).length, 2);
  } finally {
    await stopCli(b);
  }
});

test("tracker --help documents the limits; bad flags exit 2 with one line", async () => {
  const help = await runTs([CLI, "--help"]);
  assert.equal(help.code, 0);
  for (const word of [
    "64 KiB",
    "255",
    "24 h",
    "--lease-ms",
    "Retry-After",
    "--fault",
    "Idempotent-Replayed",
    "within 10 s",
    "within\n30 s (408",
  ])
    assert.ok(help.stdout.includes(word), word);
  const bad: Array<[string[], RegExp]> = [
    [[], /--variant is required/],
    [["--variant", "nope"], /unknown variant "nope"/],
    [["--variant", "keyed", "--port", "x"], /--port takes a whole number/],
    [["--variant", "keyed", "--port", "70000"], /--port must be between 0 and 65535/],
    [["--variant", "keyed", "--lease-ms", "0"], /--lease-ms must be between 1/],
    [["--variant", "keyed", "--fault", "nope"], /unknown fault "nope"/],
    [["--variant", "keyed", "--fault", "slow@x"], /--fault takes a whole number/],
    [["--variant", "keyed", "--wat"], /unknown option '--wat'/],
    [["--variant", "keyed", "extra"], /Unexpected argument 'extra'/],
  ];
  await Promise.all(
    bad.map(async ([args, message]) => {
      const r = await runTs([CLI, ...args]);
      assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
      assert.match(r.stderr, /^error: /);
      assert.match(r.stderr, message);
      assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
      assert.equal(r.stdout, "");
    }),
  );
});
