/**
 * Exercise 11a · Scope a middleware's keys to the caller
 *
 * Goal: lesson 11 found two gaps in express-idempotency. It looks a key up by its value alone, so a
 * second caller who sends the same key gets the first caller's stored answer (other-caller: leak);
 * and it takes the header's text as the key, so the draft's quoted "k" and Stripe's bare k are two
 * keys (quoted-key: duplicate). Close both around the package, not inside it: write scopedKey,
 * which turns a request's Authorization header and its Idempotency-Key header lines into the key
 * the package should see. The server puts your key in the Idempotency-Key header before the package
 * runs (lib/middleware/scoping.ts):
 *   no Idempotency-Key line          → undefined (the package does nothing, as before)
 *   a malformed key, or two lines    → { error: "…" } (the server answers 400)
 *   a key, quoted or bare            → { key } for this caller and this key
 * One caller's "k" and k get the same key; two callers (two Authorization values, or none) with the
 * same key get two. The key you return goes back into a header: printable ASCII, no space, no
 * double quote, no comma, at most 255 characters.
 *
 * Constraints: a pure function. Read the key with lesson 04's parser (parseIdempotencyKey in
 * lib/protocol/idempotency-key.ts). The Authorization value is the caller as sent; absent is one
 * anonymous caller. No two (caller, key) pairs may give one key, whatever characters they hold.
 * Check your answer with `npm run check 11a`: the test also runs the probe's other-caller and
 * quoted-key checks against express-idempotency with your function in front of it.
 *
 * 练习 11a · 让中间件的键按调用方隔开
 *
 * 目标：第 11 课在 express-idempotency 里发现了两个漏洞。它只按键的值查找，所以第二个调用方发来同一
 * 个键，会拿到第一个调用方存下的响应（other-caller：泄露）；它把头的文本直接当成键，所以草案带引号
 * 的 "k" 和 Stripe 的裸值 k 成了两个键（quoted-key：重复）。在包的外面把两个漏洞都堵上，不改包本
 * 身：写 scopedKey，把请求的 Authorization 头和 Idempotency-Key 头的各行，变成包应该看到的键。服务
 * 端会在包运行之前，把你的键放进 Idempotency-Key 头（lib/middleware/scoping.ts）：
 *   没有 Idempotency-Key 这一行      → undefined（包什么都不做，和以前一样）
 *   键的格式不对，或者有两行         → { error: "…" }（服务端回 400）
 *   一个键，带引号或不带             → { key }，对应这个调用方和这个键
 * 同一个调用方的 "k" 和 k 得到同一个键；两个调用方（两个不同的 Authorization 值，或者没有）用同一个
 * 键，得到两个键。你返回的键会放回头里：可打印 ASCII，不含空格、双引号和逗号，最多 255 个字符。
 *
 * 约束：纯函数。用第 04 课的解析器读键（lib/protocol/idempotency-key.ts 里的
 * parseIdempotencyKey）。Authorization 的值原样就是调用方；没有这个头，算作同一个匿名调用方。任何两
 * 组不同的 (caller, key) 都不能得到同一个键，不管里面是什么字符。用 `npm run check 11a` 检查你的答
 * 案：测试还会把你的函数放在 express-idempotency 前面，跑 probe 的 other-caller 和 quoted-key 两项
 * 检查。
 */
import type { Scoped } from "../lib/middleware/scoping.ts";

export function scopedKey(authorization: string | undefined, keyValues: readonly string[]): Scoped {
  // TODO: no line → undefined; parse the lines; refused → { error }; else a key per (caller, key).
  // 待办：没有行 → undefined；解析各行；被拒绝 → { error }；否则每个 (caller, key) 一个键。
  throw new Error("TODO: write scopedKey (exercise 11a)");
}
