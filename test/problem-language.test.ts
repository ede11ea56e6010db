// A problem's detail in the client's language (lib/protocol/http.ts): the tracker of a workbook run
// in Chinese answers a client that asks for Chinese (Accept-Language, RFC 9110 §12.5.4) with its
// detail in Chinese and Content-Language: zh-CN, and any other client in English; a failure stored
// under a key is stored as its first client read it and replayed so. Red before: every detail was
// English, and the Chinese lessons quoted English in the agent's lines.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { httpCall, type Outcome } from "../lib/client/client.ts";
import { setLang } from "../lib/core/lang.ts";
import { askedLanguage, inClientLanguage, problem } from "../lib/protocol/http.ts";
import { Faults } from "../lib/tracker/faults.ts";
import { startTracker, type Tracker } from "../lib/tracker/service.ts";

setLang("zh"); // this file's process speaks Chinese, as `npm run lesson N -- --lang zh` does

test("askedLanguage: the range weighted highest decides, the first of equals; zh-* is Chinese", () => {
  const cases: [string | undefined, "en" | "zh"][] = [
    [undefined, "en"],
    ["", "en"],
    ["zh-CN", "zh"],
    ["ZH", "zh"],
    ["zh-Hans-CN, en;q=0.5", "zh"],
    ["en, zh-CN", "en"],
    ["en;q=0.4, zh-CN;q=0.9", "zh"],
    ["zh;q=0, en", "en"],
    ["zhx, en", "en"],
    ["*", "en"],
    ["zh-CN;q=abc, en;q=0.1", "en"],
    ["fr, zh;q=0.8", "en"],
  ];
  for (const [field, lang] of cases) assert.equal(askedLanguage(field), lang, String(field));
});

test("inClientLanguage: only a problem with a said detail changes, and only for zh; Vary always", () => {
  const p = { ...problem(409, "Conflict", "in progress"), said: "还在进行中" };
  assert.deepEqual(inClientLanguage(p, "zh").body, {
    ...(p.body as Record<string, unknown>),
    detail: "还在进行中",
  });
  assert.equal(inClientLanguage(p, "zh").headers?.["content-language"], "zh-CN");
  assert.deepEqual(inClientLanguage(p, "en").body, p.body);
  assert.equal(inClientLanguage(p, "en").headers?.["content-language"], undefined);
  assert.equal(inClientLanguage(p, "en").headers?.vary, "accept-language");
  const ok = { status: 201, body: { id: 1 } };
  assert.deepEqual(inClientLanguage(ok, "zh"), ok);
});

let tracker: Tracker;
const faults = new Faults();
before(async () => {
  tracker = await startTracker({ variant: "keyed", faults });
});
after(() => tracker.close());

type Response = Extract<Outcome, { kind: "response" }>;
async function post(key: string, acceptLanguage?: string): Promise<Response> {
  const o = await httpCall({
    method: "POST",
    url: `${tracker.url}/reports`,
    body: { title: "Login button does nothing" },
    headers: {
      "idempotency-key": key,
      ...(acceptLanguage === undefined ? {} : { "accept-language": acceptLanguage }),
    },
    timeoutMs: 10_000,
  });
  assert.equal(o.kind, "response", JSON.stringify(o));
  return o as Response;
}
const detail = (r: Response): string => (r.body as { detail: string }).detail;

test("a 422 in the client's language: Chinese for zh-CN, English for en", async () => {
  assert.equal((await post("reused", "en")).status, 201);
  const other = (lang: string) =>
    httpCall({
      method: "POST",
      url: `${tracker.url}/reports`,
      body: { title: "Another report" },
      headers: { "idempotency-key": "reused", "accept-language": lang },
      timeoutMs: 10_000,
    }) as Promise<Response>;
  const zh = await other("zh-CN");
  const en = await other("en");
  assert.deepEqual([zh.status, en.status], [422, 422]);
  assert.equal(zh.headers["content-language"], "zh-CN");
  assert.match(detail(zh), /[\u4e00-\u9fff]/, detail(zh));
  assert.equal(en.headers["content-language"], undefined);
  assert.match(detail(en), /^Idempotency-Key \S+ was first used for a different request/);
  for (const r of [zh, en]) assert.equal(r.headers.vary, "accept-language");
});

test("a stored 500 is stored as its first client read it (Chinese) and replayed so to any client", async () => {
  faults.at(4, "internal-error");
  const first = await post("stored-500", "zh-CN, en;q=0.5");
  assert.equal(first.status, 500);
  assert.equal(first.headers["content-language"], "zh-CN");
  assert.match(detail(first), /[\u4e00-\u9fff]/, detail(first));
  const again = await post("stored-500", "en");
  assert.equal(again.status, 500);
  assert.equal(again.headers["idempotent-replayed"], "true");
  assert.equal(detail(again), detail(first));
});

test("a stored 500 for an English client stays English, replayed to a Chinese one", async () => {
  faults.at(6, "internal-error");
  const first = await post("stored-500-en", "en");
  assert.equal(first.status, 500);
  assert.equal(first.headers["content-language"], undefined);
  assert.match(detail(first), /^the report could not be filed: /);
  const again = await post("stored-500-en", "zh-CN");
  assert.equal(detail(again), detail(first));
});

test("the 409s after a lease overrun carry their note in the client's language too", async () => {
  let clock = 0;
  const slow = new Faults({ 1: "slow", 2: "slow" });
  const t = await startTracker({
    variant: "fenced",
    faults: slow,
    leaseMs: 1_000,
    now: () => clock,
  });
  try {
    const send = (lang: string) =>
      httpCall({
        method: "POST",
        url: `${t.url}/reports`,
        body: { title: "slow" },
        headers: { "idempotency-key": "slow-key", "accept-language": lang },
        timeoutMs: 10_000,
      }) as Promise<Response>;
    const first = send("en");
    await slow.reached(1, "held");
    clock = 1_001;
    const second = send("en");
    await slow.reached(2, "held");
    slow.release(1);
    assert.equal((await first).status, 409, "the late holder is fenced out");
    const zh = await send("zh-CN");
    const en = await send("en");
    assert.deepEqual([zh.status, en.status], [409, 409]);
    assert.match(
      detail(en),
      /Note: on this tracker a request has held a key longer than the lease/,
    );
    assert.equal(zh.headers["content-language"], "zh-CN");
    assert.match(
      detail(zh),
      /占键的时间超过了租约（最近一个是请求 1：租约 1000 ms，它占了 1001 ms）/,
    );
    assert.doesNotMatch(detail(zh), /[A-Za-z]{4,} [A-Za-z]{4,}/, "no English sentence left");
    slow.release(2);
    assert.equal((await second).status, 201);
  } finally {
    await t.close();
  }
});
