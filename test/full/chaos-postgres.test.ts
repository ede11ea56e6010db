// The chaos run on PostgreSQL: the same seeded plan, several tracker processes behind the round-robin
// proxy, SIGKILLs included, all on one schema of the test run's server. fenced stays exactly-once;
// keyed files twice when a paused holder wakes after its key was taken over, as on SQLite.
import assert from "node:assert/strict";
import { test } from "node:test";
import { runChaos } from "../../lib/chaos/run.ts";
import { CHAOS_FAULTS, planChaos } from "../../lib/chaos/schedule.ts";
import { testServerUrl } from "./postgres-helpers.ts";

/** No test here waits forever: one that hangs fails after this long, saying so. */
const LIMIT = { timeout: 120_000 };

const smoke = { ops: 60, seed: 3, agents: 12, rate: 0.5, timeoutMs: 300, leaseMs: 500 } as const;

test(
  "a small seeded chaos run on PostgreSQL: fenced stores every operation exactly once and answers each",
  LIMIT,
  async () => {
    const r = await runChaos({
      variant: "fenced",
      store: "postgres",
      databaseUrl: await testServerUrl(),
      ...smoke,
    });
    const plan = planChaos({
      seed: smoke.seed,
      ops: smoke.ops,
      agents: smoke.agents,
      rate: smoke.rate,
    });
    assert.equal(r.store, "postgres");
    assert.equal(r.digest, plan.digest, "the same plan as on SQLite");
    const injected = CHAOS_FAULTS.reduce((n, f) => n + r.injected[f], 0);
    assert.ok(
      injected > 0 && r.restarts > 0,
      `faults injected ${injected}, restarts ${r.restarts}`,
    );
    assert.deepEqual(
      {
        duplicates: r.tally.duplicates,
        lost: r.tally.lost,
        unanswered: r.tally.unanswered,
        stored: r.tally.stored,
        changed: r.changedAnswers,
      },
      { duplicates: 0, lost: 0, unanswered: 0, stored: smoke.ops, changed: 0 },
      r.examples.join("\n"),
    );
  },
);

test(
  "keyed on PostgreSQL, paused holders only: a holder that wakes after the take-over files a second report (red)",
  LIMIT,
  async () => {
    const r = await runChaos({
      variant: "keyed",
      store: "postgres",
      databaseUrl: await testServerUrl(),
      ops: 16,
      agents: 8,
      processes: 2,
      seed: 3,
      rate: 0.5,
      timeoutMs: 250,
      leaseMs: 400,
      faults: ["pause-past-lease"],
    });
    assert.ok(r.injected["pause-past-lease"] > 0);
    assert.ok(r.tally.duplicates >= 1, `keyed duplicates: ${r.tally.duplicates}`);
    assert.equal(r.tally.lost, 0);
  },
);
