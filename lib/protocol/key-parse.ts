/**
 * The types of reading the `Idempotency-Key` header: what a reading gives back, the key or what is
 * wrong with the header. Types only, in a module of their own: exercise 04b imports them, and a
 * learner who opens this file finds no parser here.
 */

/** The form the key came in: the IETF draft's quoted sf-string, or Stripe's bare value. */
export type KeyForm = "sf-string" | "token";

/** What is wrong with the header; every one becomes a 400. */
export type KeyProblem =
  | "missing"
  | "duplicated"
  | "empty"
  | "too-long"
  | "not-printable"
  | "unparseable";

/** The key and its form, or the problem and a sentence for the client (`detail`). */
export type KeyParse =
  | { ok: true; key: string; form: KeyForm }
  | { ok: false; problem: KeyProblem; detail: string };
