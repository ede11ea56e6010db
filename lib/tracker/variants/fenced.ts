/**
 * `fenced`: `keyed` plus a fencing token checked wherever a claim is finished. Every claim and every
 * take-over draws the next value of a counter in the database; the completing transaction inserts
 * the report and runs `UPDATE … SET state = 'completed', … WHERE caller = ? AND key = ? AND
 * state = 'in_progress' AND fence = ?`, and rolls back, report included, unless exactly one row
 * changed. A stale holder (paused past its lease, its key taken over meanwhile) therefore stores
 * nothing: no second report, no overwritten response, no failure written over the new holder's claim.
 * It answers from what the key holds now: the winner's response (a replay), or 409 while the winner
 * still runs. The lease only decides when a take-over may happen (liveness); the fence keeps it safe.
 *
 * The code is keyed.ts's, with the fence switched on (a token drawn at each claim, and the check):
 * that is the whole difference.
 */
import type { Variant } from "../variant.ts";
import { claimThenComplete } from "./keyed.ts";

export const fenced: Variant = claimThenComplete("fenced", true);
