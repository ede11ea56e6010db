/**
 * @title The fault matrix
 * @summary Every tracker variant against every fault, live: count the reports each leaves, then
 * answer the interview question in one breath and knock down the common wrong answers with cells
 * you ran.
 * @run npm run lesson 8
 * @exercise 08a
 * @resource RFC 9110 §9.2.2 Idempotent Methods:
 * https://www.rfc-editor.org/rfc/rfc9110.html#section-9.2.2
 * @resource IETF draft-ietf-httpapi-idempotency-key-header-07 (15 Oct 2025, expired 18 Apr 2026):
 * https://datatracker.ietf.org/doc/html/draft-ietf-httpapi-idempotency-key-header
 * @resource Stripe, "Idempotent requests": https://docs.stripe.com/idempotency
 * @resource Martin Kleppmann, "How to do distributed locking" (2016), fencing tokens:
 * https://martin.kleppmann.com/2016/02/08/how-to-do-distributed-locking.html
 * @resource AWS Architecture Blog, "Exponential Backoff And Jitter" (Marc Brooker, 2015), its
 * simulator ported in lib/herd/simulator.ts
 * @resource Amazon Builders' Library, "Timeouts, retries, and backoff with jitter" (Marc Brooker)
 *
 * What you will see: the four tracker variants (naive, key-after, keyed, fenced) each meet the six
 * faults (a lost response, a slow handler, two calls with one key at once, SIGKILL right after the
 * report's commit, SIGKILL right after the key's claim, a holder paused past its lease), with the
 * client policy each is built for. Every cell is a live run over real HTTP and a real SQLite file,
 * the crash cells with real tracker processes killed and restarted; the matrix prints how many
 * reports each left. Then the client's half, the answer in one breath, and each common wrong answer
 * next to the run that disproves it.
 *
 * Demo 2 of the course, "pick a fault and an implementation, step through every request, watch the
 * report count": npm run lesson 8 -- --step --variant keyed --fault pause-past-lease (--policy
 * picks the client). The same steps in a browser, drawn as lanes: npm run demos, then the page
 * /step.
 */

import type { PolicyName } from "../lib/client/client.ts";
import { exitOnUsageError, lessonSetup } from "../lib/core/cli.ts";
import { t } from "../lib/core/i18n.ts";
import { scratchDir } from "../lib/core/scratch.ts";
import { simulatePoint } from "../lib/herd/simulator.ts";
import {
  type CellResult,
  MATRIX_FAULTS,
  type MatrixFault,
  matrixVariants,
  runCell,
  runCells,
} from "../lib/matrix/matrix.ts";
import { cellChoice, cellFlagHelp, traceCells } from "../lib/matrix/step.ts";
import {
  callText,
  printLegend,
  printMatrix,
  printWrongUnder,
  verdictText,
} from "../lib/matrix/tables.ts";
import type { VariantName } from "../lib/tracker/variant.ts";

const { trace, seed, step, color, values, heading } = lessonSetup(import.meta, {
  options: { variant: { type: "string" }, fault: { type: "string" }, policy: { type: "string" } },
  optionHelp: cellFlagHelp(),
});
const scratch = scratchDir();
const started = performance.now();
// --variant, --fault and --policy narrow the matrix to the cells they name (lib/matrix/step.ts).
const only = exitOnUsageError(() => cellChoice(values));
// The cells' kept traces at the trace's width: the one printed in full below wraps as a live
// trace does.
const cellOptions = { dbPath: scratch.path, seed, color, width: trace.width };

async function wholeMatrix(): Promise<void> {
  trace.prose(
    t(`One logical call, "file this report", should leave exactly one report whatever goes
      wrong on the way. Each cell below is a live run: a tracker of one variant over a fresh SQLite
      file, one fault injected on the server at a gate (not a timer), and the agent's call with the
      policy the variant is built for: naive gets blind-retry (it knows no keys), the keyed
      variants get same-key (one key per logical call, reused on every retry). The crash cells run
      the tracker as a real child process, kill it with SIGKILL and restart it on the same file.
      The number is the count of reports in the cell's database at the end.`),
  );

  // Cells run four at a time, each with its own tracker, file and agent; each keeps its trace to
  // itself, so the interleaving changes nothing. The tracker's clock is paced by the agent's waits
  // (lib/tracker/paced-clock.ts): a lease runs out when the agent has waited long enough, on any
  // machine.
  trace.section(t("The matrix: reports left by one logical call (1 is right)"));
  const cells = matrixVariants().flatMap((variant) =>
    MATRIX_FAULTS.map((fault) => ({ variant, fault })),
  );
  const results = await runCells(cells, cellOptions, 4);
  printMatrix(trace, results);
  printLegend(trace);
  printWrongUnder(trace, results);
  trace.prose(
    t(`Read it row by row. naive files again after any retry that follows work it already
      did. key-after survives a lost response (the key was recorded) but not a retry that arrives
      while the first request runs, nor a crash between its two commits. keyed claims the key
      before the work, so only a holder that wakes after its lease beats it. fenced adds the
      fencing token to the completing transaction and leaves one report in every cell.`),
  );
  trace.prose(
    t("Step through any cell: npm run lesson 8 -- --step --variant <variant> --fault <fault>."),
  );
  const cell = (v: VariantName, f: MatrixFault): CellResult =>
    results.find((r) => r.variant === v && r.fault === f)!;

  // The three policies that retry, run at once: each cell has its own tracker and file.
  trace.section(t("The client's half: fenced × lose-response under each retry policy"));
  const policies: PolicyName[] = ["blind-retry", "fresh-key", "same-key"];
  const byPolicy = await Promise.all(
    policies.map((policy) => runCell("fenced", "lose-response", { ...cellOptions, policy })),
  );
  trace.table(
    [t("policy"), t("the agent's attempts"), t("reports"), t("verdict")],
    byPolicy.map((r) => [r.policy, callText(r.calls[0]!), String(r.reports), verdictText(r)]),
  );
  const [blind, fresh, same] = byPolicy as [CellResult, CellResult, CellResult];
  trace.prose(
    t(
      `blind-retry sends no key, and the fenced tracker refuses a POST without one before
      it does anything: the first refusal was lost like any answer, the retry got its {refused};
      {blind, plural, one {# report} other {# reports}}, and an error to show for it. fresh-key
      sends a key, a new one each attempt, so the retry is a new operation: {fresh, plural, one {#
      report} other {# reports}}. same-key: {same}, and the second answer is the first one
      replayed.`,
      {
        refused: blind.calls[0]!.at(-1),
        blind: blind.reports,
        fresh: fresh.reports,
        same: same.reports,
      },
    ),
  );

  trace.section(t("The answer, in one breath"));
  trace.prose(
    t(`"A timeout does not mean it failed; it means I do not know. So before resending I ask
      whether the request has a side effect. If it has, the client makes one idempotency key per
      logical operation and sends the same key on every retry, and the server records the key and
      does the work in one transaction: the same key gets the stored answer replayed, the same key
      with a different body gets 422, a key still in progress gets 409. Because a claim can be
      taken over when its lease runs out, every claim carries a fencing token and the completing
      write checks it. Side effects outside my database go through an outbox row written in that
      transaction, delivered with a key the receiver deduplicates. The retries wait with
      exponential backoff and large jitter, full jitter when many clients fail together, and only
      one layer retries. And I test it: inject a lost response after the commit, a crash between
      two commits and two requests with one key on the server, assert that the database holds
      exactly one report, and watch that assertion fail on the wrong implementation first."`),
  );
  trace.prose(
    t(`Every clause is a cell above or a lesson before: the replay (lose-response), 409
      (concurrent), the fence (pause-past-lease), the outbox (lesson 07), the jitter (lesson 02),
      one layer (lesson 03).`),
  );

  trace.section(t("Common wrong answers, and the run that disproves each"));
  // Lesson 02's simulator (synthetic: the AWS blog's model), one herd of 50 clients, 20 runs each.
  const herd = (strategy: "exponential" | "full") =>
    String(Math.round(simulatePoint({ strategy, clients: 50, runs: 20, seed }).calls));
  trace.line(`  ${t('1. "Exponential backoff prevents the thundering herd."')}`);
  trace.prose(
    t(
      `Lesson 02's herd, run again here (the AWS blog's model, simulated, 50 clients that
      fail together, mean of 20 runs): exponential backoff without jitter needs {expo} write
      calls, full jitter {full}. Without jitter the clients that failed together sleep the same
      time and collide again, wave after wave.`,
      { expo: herd("exponential"), full: herd("full") },
    ),
  );

  trace.line(`  ${t('2. "Send a fresh UUID as the idempotency key on every request."')}`);
  trace.prose(
    t(
      `Cell fenced × lose-response with fresh-key, above: {n, plural, one {# report} other
      {# reports}} from the correct tracker. The key names one logical operation; a new key per
      attempt makes every retry a new operation (lesson 04, case 1b).`,
      { n: fresh.reports },
    ),
  );

  // No cell can show a document's status: this one is said, with its dates (facts.md).
  trace.line(`  ${t('3. "Idempotency-Key is an HTTP standard."')}`);
  trace.prose(
    t(`It is an IETF draft, draft-ietf-httpapi-idempotency-key-header-07 of 2025-10-15,
      expired on 2026-04-18: not an RFC. Vendors differ (the draft quotes the key as a Structured
      Field String, Stripe shows it bare); lesson 04, section 6, sends both forms to the tracker.`),
  );

  const after = cell("key-after", "crash-between-commits");
  trace.line(`  ${t('4. "Insert the data first, then record the key."')}`);
  trace.prose(
    t(
      `Cell key-after × crash-between-commits: {n, plural, one {# report} other {#
      reports}}. Its trace, as it ran:`,
      { n: after.reports },
    ),
  );
  for (const line of after.events) trace.line(line);
  trace.prose(
    t(
      `The report was committed, the key was not; the restarted tracker did not know the
      key and filed again. keyed and fenced commit the report and the key together: {keyed} and
      {fenced}.`,
      {
        keyed: cell("keyed", "crash-between-commits").reports,
        fenced: cell("fenced", "crash-between-commits").reports,
      },
    ),
  );

  trace.line(
    `  ${t('5. "Record the key and the report in one transaction, and nothing can duplicate."')}`,
  );
  trace.prose(
    t(
      `Cell keyed × pause-past-lease: {paused, plural, one {# report} other {# reports}},
      every one of them written in one perfect transaction. The holder was paused, not dead; its
      lease ran out, a retry took the key over and filed, and the holder woke and filed too. One
      transaction keeps one request whole; it cannot stop two requests from each writing. fenced ×
      pause-past-lease: {fenced}. And the lease itself is needed: keyed × crash-after-claim,
      {dead}, is a dead holder's key taken over once its lease ran out (lesson 05).`,
      {
        paused: cell("keyed", "pause-past-lease").reports,
        fenced: cell("fenced", "pause-past-lease").reports,
        dead: cell("keyed", "crash-after-claim").reports,
      },
    ),
  );

  trace.section(t("The follow-up questions, and where they were answered"));
  trace.table(
    [t("question"), t("answered in")],
    [
      [
        t("the side effect is not in your database"),
        t("lesson 07: the outbox, a key passed downstream"),
      ],
      [
        t("the process is killed after claiming the key"),
        t("lesson 05; cells × crash-after-claim and × pause-past-lease"),
      ],
      [t("should 429 be retried?"), t("lesson 03: which 429, and Retry-After")],
      [
        t("the model submitted again by itself"),
        t("lesson 06: business keys, honest tool results, a judge"),
      ],
      [t("what does my HTTP client do on its own?"), t("lesson 09")],
    ],
  );
  trace.prose(
    t(
      `Exercise 08a: write your own fault-injection test and see it fail on naive and pass
      on fenced (npm run check 8). (This run took {ms} ms, {cells} cells, tracker processes
      included.)`,
      {
        ms: String(Math.round(performance.now() - started)),
        cells: results.length + byPolicy.length,
      },
    ),
  );
}

trace.title(heading);
try {
  if (only.variant !== undefined || only.fault !== undefined || only.policy !== undefined || step)
    await traceCells(trace, only, { ...cellOptions, stepped: step });
  else await wholeMatrix();
} finally {
  scratch.remove();
}
