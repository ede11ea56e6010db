/**
 * Exercise 11a · Scope a middleware's keys to the caller (reference answer)
 *
 * The key is parsed in either form by lesson 04's parser, then (caller, key) is hashed: JSON of the
 * pair keeps "a:b" + "c" apart from "a" + "b:c", and a hex sha256 is always a valid bare key.
 */
import { createHash } from "node:crypto";
import type { Scoped } from "../lib/middleware/scoping.ts";
import { parseIdempotencyKey } from "../lib/protocol/idempotency-key.ts";

export function scopedKey(authorization: string | undefined, keyValues: readonly string[]): Scoped {
  if (keyValues.length === 0) return undefined;
  const parsed = parseIdempotencyKey(keyValues);
  if (!parsed.ok) return { error: parsed.detail };
  const caller = authorization ?? "";
  return {
    key: createHash("sha256")
      .update(JSON.stringify([caller, parsed.key]))
      .digest("hex"),
  };
}
