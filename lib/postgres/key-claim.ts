/**
 * The types of a claim of an idempotency key on PostgreSQL (lesson 10), and the table it goes in,
 * as the tracker's PostgreSQL store creates it. Types only, in a module of their own: exercise 10a
 * imports them, and a learner who opens this file finds no claim statement here.
 *
 *   idempotency_keys   one row per (caller, key), PRIMARY KEY (caller, key)
 *     caller           who sent the key (text)
 *     key              the Idempotency-Key (text)
 *     fingerprint      what the request asked for (text)
 *     state            'in_progress' while a claim holds the key, then 'completed'
 *     fence            the fencing token of the claim that holds (or completed) the key (bigint)
 *     lease_until      the claim may be taken over from this moment on (bigint, ms)
 *     expires_at       the key is forgotten from this moment on (bigint, ms)
 *     status           the stored answer's status, once completed (integer, else NULL)
 *     headers          the stored answer's headers, once completed (text, else NULL)
 *     body             the stored answer's body, once completed (text, else NULL)
 *   idempotency_fence  the sequence the fencing tokens are drawn from (nextval)
 */

/** What a claim needs: who, which key, for what request, and the times it runs by. */
export interface Claim {
  caller: string;
  key: string;
  fingerprint: string;
  /** The caller's clock, ms. */
  now: number;
  leaseMs: number;
  ttlMs: number;
}
