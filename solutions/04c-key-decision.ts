/**
 * Exercise 04c · What a keyed tracker does with a key it has seen (reference answer)
 *
 * The reference answer is the decision the keyed variants make on every request: read it, with the
 * reasons for its order, in lib/protocol/key-decision.ts (decideKey).
 */
export { decideKey, type KeyDecision, type KeyRow } from "../lib/protocol/key-decision.ts";
