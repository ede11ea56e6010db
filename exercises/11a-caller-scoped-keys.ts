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
 */
import type { Scoped } from "../lib/middleware/scoping.ts";

export function scopedKey(authorization: string | undefined, keyValues: readonly string[]): Scoped {
  // TODO: no line → undefined; parse the lines; refused → { error }; else a key per (caller, key).
  throw new Error("TODO: write scopedKey (exercise 11a)");
}
