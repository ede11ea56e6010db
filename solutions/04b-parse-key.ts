/**
 * Exercise 04b · Read the Idempotency-Key header, both forms (reference answer)
 *
 * The reference answer is the tracker's own parser, which the keyed variants use on every request:
 * read it in lib/protocol/idempotency-key.ts (parseIdempotencyKey, parseSfString, parseBare).
 */
export {
  type KeyParse,
  MAX_KEY_CHARS,
  parseIdempotencyKey,
} from "../lib/protocol/idempotency-key.ts";
