/**
 * The exercises' hints, kept out of the files the learner edits: the watch mode's `h` and
 * `npm run hint` are the only ways to see them. One entry per exercise id; each line below is a piece
 * of one paragraph (joined with spaces when shown).
 */
const HINTS: Record<string, readonly string[]> = {
  "01a": [
    "Start with isIdempotentMethod: RFC 9110 \u00a79.2.2 names PUT, DELETE and the safe methods of \u00a79.2.1",
    "(GET, HEAD, OPTIONS, TRACE). Method names are case-sensitive (\u00a79.1), so \"get\" is not GET. Then",
    "mayRetryAutomatically: an idempotent method may be retried after any of these failures (how",
    "many times is lesson 03's question: the same section says a client SHOULD NOT automatically retry",
    "a failed automatic retry); otherwise the rule's escape",
    "clause needs \"some means to know that the request semantics are actually idempotent\" (a key the",
    "server honours) \"or some means to detect that the original request was never applied\" (the",
    "connection was refused, so nothing was sent).",
  ],
  "02a": [
    "nominalBackoffMs: the wait starts at 200 ms and doubles for every retry after the first, so",
    "retry n waits 200 \u00d7 2^(n\u22121) ms (2 ** (n - 1) in TypeScript); attempt 0 counts as attempt 1, like the",
    "Rust code's saturating_sub. codexBackoff: multiply that by a factor drawn uniformly from [0.9, 1.1).",
    "random() gives r in [0, 1); 0.9 + 0.2 \u00d7 r stretches it onto [0.9, 1.1). Draw exactly once per call.",
  ],
  "02b": [
    "fullJitter: the wait is r \u00d7 v_n, where r = random() and v_n = cappedExponentialMs(attempt,",
    "params). decorrelatedJitter: a uniform draw between base and 3 \u00d7 prev is base + (3 \u00d7 prev \u2212 base) \u00d7 r;",
    "then apply the cap with Math.min. decorrelatedClient: keep `prev` in a variable of the closure,",
    "starting at params.baseMs; each call computes the next wait with decorrelatedJitter, stores it as",
    "the new `prev` and returns it. One draw per wait, in every function.",
  ],
  "03a": [
    "Keep one number, the tokens in the bucket, starting at CAPACITY. acquire picks the cost from",
    "the kind (TIMEOUT_RETRY_COST for \"transient\", RETRY_COST for \"throttling\"); if the bucket holds less than",
    "that, it refuses (undefined) and changes nothing; else it takes the cost and returns it. The caller",
    "keeps that number and hands it to recordSuccess when the call finally succeeds; a call that",
    "succeeded at once passes nothing, and NO_RETRY_INCREMENT comes back instead. Math.min keeps the",
    "bucket from overflowing.",
  ],
  "03b": [
    "shouldRetry: anything that is not a response (a connection error, a timeout) is retried. For a",
    "response, look at the x-should-retry header first: exactly \"true\" or \"false\" decides. Otherwise",
    "408, 409, 429 and every status from 500 up are retried. retryDelay: read retry-after-ms first (a",
    "number of milliseconds); if it is missing or not a number, read retry-after, either a number of",
    "seconds or an HTTP-date (Date.parse reads \"Thu, 15 Jan 2026 09:00:03 GMT\"; the delay is that time",
    "minus nowMs). Use the server's delay only when it is more than 0 and at most MAX_RETRY_AFTER_MS;",
    "in every other case return anthropicSdkDelayMs(retriesSoFar, random).",
  ],
  "04a": [
    "reportsAfterLostResponse: `const tracker = await startTracker({ variant, faults: new Faults({ 1:",
    "\"lose-response\" }) })`, then in a try block `await fileReport({ url: tracker.url, report: { title: \"\u2026\" },",
    "policy: \"same-key\", maxAttempts: 2, timeoutMs: 100, random: seeded(1) })` and return",
    "`tracker.store.countReports()`; close the tracker in `finally` (a tracker left open keeps the test",
    "from ending). lostResponseTest: `assert.equal(await reportsAfterLostResponse(subjects.broken), 2)`,",
    "then the same with 1 for subjects.fixed. Use node:assert, whose failures are AssertionErrors.",
  ],
  "04b": [
    "Look at values.length first: none is \"missing\", more than one is \"duplicated\". Trim spaces and",
    "tabs around the one value. If it starts with a double quote, walk it character by character (RFC 9651",
    "\u00a74.2.5): a backslash must be followed by \" or \\ (keep that character), a \" ends the string and must be",
    "the last character, anything outside 0x20-0x7E is \"not-printable\", and running out of characters",
    "before the closing quote is \"unparseable\". Otherwise it is the bare form: every character must be",
    "printable ASCII, and a space, \" or comma makes it \"unparseable\". Last, the key itself: empty is",
    "\"empty\", more than 255 characters is \"too-long\" (count the key after unescaping).",
  ],
  "04c": [
    "The order of the checks is the whole exercise. First, is there a live row at all? None, or one",
    "whose TTL has run out (now >= expiresAt), means a new operation: claim. Then compare fingerprints: a",
    "different one is a misused key, \"mismatch\" (422), whatever state the row is in. Then the state: a",
    "completed row is a \"replay\". An in-progress row is \"in-progress\" (409) while now < leaseUntil, with",
    "retryAfterMs = leaseUntil - now; once the lease has run out, \"take-over\".",
  ],
  "05a": [
    "db.exec(\"BEGIN IMMEDIATE\"), then in a try block: insert the report with",
    "`db.prepare(\"INSERT INTO reports (title) VALUES (?)\").run(title)` (its result's lastInsertRowid is",
    "the new id), then run `UPDATE idempotency_keys SET state = 'completed', report_id = ? WHERE key = ?",
    "AND state = 'in_progress' AND fence = ?`. Its result's `changes` says how many rows matched: if it is",
    "not 1, db.exec(\"ROLLBACK\") and return undefined; else db.exec(\"COMMIT\") and return the id as a number.",
    "In the catch block, ROLLBACK and throw the error again.",
  ],
  "05b": [
    "db.exec(\"BEGIN IMMEDIATE\"), then read the row: `SELECT state, fence, lease_until FROM",
    "idempotency_keys WHERE key = ?`. No row, a 'completed' one, or now < lease_until: ROLLBACK (nothing",
    "was written) and return undefined. Otherwise draw the token: `UPDATE fence_counter SET value = value",
    "+ 1 WHERE only = 1 RETURNING value` (use .get(), it returns { value }), then `UPDATE idempotency_keys",
    "SET fence = ?, lease_until = ? WHERE key = ? AND fence = ?` with the new token, now + leaseMs, the",
    "key and the token you read. COMMIT and return the new token. In a catch block, ROLLBACK and rethrow.",
  ],
  "06a": [
    "normalizeTitle: `title.normalize(\"NFKC\").toLowerCase()`, then replace every run of characters",
    "that are neither letters nor digits with one space (`/[^\\p{L}\\p{N}]+/gu`; the u flag makes \\p work),",
    "then trim. businessKey: build an unambiguous string from the three parts, e.g.",
    "`JSON.stringify([run, normalizeTitle(module), normalizeTitle(title)])` (a JSON array cannot confuse",
    "\"a:b\",\"c\" with \"a\",\"b:c\"), and hash it: `createHash(\"sha256\").update(text).digest(\"hex\")` from",
    "node:crypto gives 64 hex digits, printable ASCII with no space, quote or comma. A prefix such as",
    "\"report-\" is fine.",
  ],
  "06b": [
    "Switch on outcome.kind. \"filed\": is_error false, and say the report's number (\"report #7\") and",
    "title; when outcome.existing, say it already existed and nothing new was filed. \"failed\": is_error",
    "true, start with \"Submission failed\", give the status and the detail, and say nothing was stored.",
    "\"unknown\": is_error true, start with \"Outcome unknown\", give outcome.saw, say the report \"may already",
    "exist\" and to \"look it up first\", and name the lookup: `GET /reports?title=` followed by",
    "encodeURIComponent(outcome.title). Do not use the word \"failed\" for the unknown case.",
  ],
  "07a": [
    "rowKey: anything that names the row and only the row, e.g. `outbox-row-${row.id}`; never a",
    "random value or a time, or a redelivery would look new. dispatch: `const outbox = outboxOf(input.store)`;",
    "for each row of `outbox.pending()`, `await httpCall({ method: \"POST\", url: \\`${input.notifierUrl}/notifications\\`,",
    "body: row.notification, headers: { \"idempotency-key\": \\`\"${rowKey(row)}\"\\` }, timeoutMs: 2_000 })`. On a 2xx",
    "response, call `input.afterAccepted?.(row)`, then `input.store.transaction(() => outbox.markSent(row.id))`",
    "and count it; on anything else leave the row alone and go on with the next.",
  ],
  "08a": [
    "reportsAfter: `const faults = new Faults({ 1: fault })` and `const tracker = await startTracker({",
    "variant, faults, leaseMs: 300 })` (a short lease: a 409 asks the agent to wait it out). Start the agent",
    "without awaiting it: `const call = fileReport({ url: tracker.url, report: { title: \"…\" }, policy:",
    "\"same-key\", maxAttempts: 4, timeoutMs: 100, random: seeded(1), beforeRetry: async (retry) => { if (retry",
    ">= 2) await faults.reached(1, \"handled\"); } })`. That gate makes a retry after a 409 wait for request #1",
    "instead of taking its key over once the lease has run out: 1 report either way, but a run that does",
    "not depend on the lease's timing. For \"slow\", wait for `faults.reached(2, \"answered\")`, then",
    "`faults.release(1)`. Then `await call`, and before you count, `await faults.reached(1, \"handled\")`:",
    "this one is required. Request #1 may still be working when the call returns (the agent has its",
    "answer from the retry), and the check lets it go on only once your test waits for it, so a count",
    "taken earlier misses its report. (\"finished\" comes as soon as the agent hangs up.) Return",
    "`tracker.store.countReports()`, and close the tracker in `finally`. exactlyOnce: `assert.equal(await",
    "reportsAfter(variant, fault), 1, \"…\")`.",
  ],
  "10a": [
    "`const { rows } = await db.query(sql, [claim.caller, claim.key, claim.fingerprint, claim.now +",
    "claim.leaseMs, claim.now + claim.ttlMs])` with sql = `INSERT INTO idempotency_keys (caller, key,",
    "fingerprint, state, fence, lease_until, expires_at) VALUES ($1, $2, $3, 'in_progress',",
    "nextval('idempotency_fence'), $4, $5) ON CONFLICT (caller, key) DO NOTHING RETURNING fence`. DO NOTHING, not",
    "DO UPDATE: an existing claim must stay as it is. When the key is there, RETURNING gives no row: return",
    "undefined; else `Number(rows[0].fence)` (a bigint comes back from pg as a string). The conflict is",
    "decided by the primary key's index, which makes a second claim wait for the first transaction's",
    "outcome (at READ COMMITTED, the default, the loser then gets no row back, not an error), so no",
    "SELECT first and no transaction of your own.",
  ],
};

/** The hint for an exercise ("" when it has none). */
export function hintFor(id: string): string {
  return (HINTS[id] ?? []).join(" ").replace(/\s+/g, " ").trim();
}

/**
 * Exercises whose answer is pure functions (no server, no database, no child process): their tests run
 * in well under a second, so a run that takes longer than PURE_LIMIT_MS is stuck, not slow. The others
 * start trackers, notifiers or SQLite files and get the longer limit.
 */
const PURE = new Set(["01a", "02a", "02b", "03a", "03b", "04b", "04c", "06a", "06b"]);
export const PURE_LIMIT_MS = 15_000;
export const SERVER_LIMIT_MS = 60_000;

/** How long one check of this exercise may run before it is stopped. */
export function checkLimitMs(id: string): number {
  return PURE.has(id) ? PURE_LIMIT_MS : SERVER_LIMIT_MS;
}
