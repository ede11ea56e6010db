/**
 * Exercise 04b · Read the Idempotency-Key header, both forms
 *
 * Goal: turn the values of the Idempotency-Key header (one string per header line, as the tracker
 * collects them from rawHeaders) into the key, or say exactly what is wrong with them. Two forms are
 * accepted: the IETF draft's sf-string (`"8e03…"`, quoted, with `\"` and `\\` as its only escapes,
 * RFC 9651 §3.3.3) and Stripe's bare value (`8e03…`).
 *
 * Constraints: a pure function, no I/O, no regular expression required (one is fine). Every refusal
 * becomes a 400 in the tracker, so the `problem` must name the first thing wrong. Lesson 04, section 6,
 * shows the tracker using it (run `npm run lesson 4`). Check your answer with `npm run check 04b`.
 *
 * 练习 04b · 读 Idempotency-Key 头：两种写法
 *
 * 目标：把 Idempotency-Key 头的值（每行头一个字符串，Bug 库从 rawHeaders 里收集）变成键，或者准确说
 * 出它们错在哪里。接受两种写法：IETF 草案的 sf-string（`"8e03…"`，带引号，只有 `\"` 和 `\\` 两种转
 * 义，RFC 9651 §3.3.3），和 Stripe 的裸值（`8e03…`）。
 *
 * 约束：纯函数，不做 I/O，不必用正则表达式（用也可以）。Bug 库把每个拒绝都变成 400，所以 `problem`
 * 要指出第一个出错的地方。第 04 课第 6 节演示 Bug 库怎么用它（`npm run lesson 4`）。用
 * `npm run check 04b` 检查你的答案。
 */
import type { KeyParse } from "../lib/protocol/key-parse.ts";

export type { KeyParse };

/** The longest key accepted, in characters, after unescaping (Stripe's limit). */
export const MAX_KEY_CHARS = 255;

/**
 * `values` holds one string per Idempotency-Key header line. Returns `{ ok: true, key, form }` with
 * form "sf-string" or "token", or `{ ok: false, problem, detail }` where problem is one of "missing",
 * "duplicated", "empty", "too-long", "not-printable", "unparseable" and detail is a sentence for the
 * client.
 */
export function parseIdempotencyKey(values: readonly string[]): KeyParse {
  // TODO: handle a missing and a duplicated header, then the quoted and the bare form, then the length.
  // 待办：先处理没有头和头重复的情况，再处理带引号和裸值两种写法，最后看长度。
  throw new Error("TODO: write parseIdempotencyKey (exercise 04b)");
}
