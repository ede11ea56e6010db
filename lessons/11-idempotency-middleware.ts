/**
 * @title The idempotency middleware you install
 * @summary express-idempotency, @node-idempotency/core and Powertools' makeIdempotent behind one
 *   bug-report handler, against the workbook's faults and the fenced tracker: which file a report
 *   twice, which get stuck, which hand one caller another's answer, and why, from their source.
 *   Then `npm run probe` for your own service.
 * @run npm run lesson idempotency-middleware
 * @resource express-idempotency dist/services/idempotencyService.js, @node-idempotency/core
 *   dist/idempotency.js, @aws-lambda-powertools/idempotency lib/esm/IdempotencyHandler.js and
 *   persistence/ (all in node_modules)
 * @resource draft-ietf-httpapi-idempotency-key-header: the key as a Structured Field string,
 *   409, 422
 * @resource VilledeMontreal/express-idempotency issue #32;
 *   aws-powertools/powertools-lambda issue #53
 *
 * What you will see: the same handler (insert one row into a SQLite file, answer 201) behind three
 * packages from npm, wired as their READMEs say, and behind the workbook's own `fenced` tracker.
 * Ten cases against each, live: a same-key client, the fault proxy, a handler held at a gate or
 * made to fail, a real process killed with SIGKILL and restarted on the same file. One table, every
 * cell from the run; then each surprising cell explained from the package's installed source, file
 * and line. Takes about 10 seconds. `--only <server>` runs one; `--json` prints the table as JSON.
 */
import { exitWithUsage, lessonSetup } from "../lib/core/cli.ts";
import { nowMs } from "../lib/core/clock.ts";
import { t } from "../lib/core/i18n.ts";
import { tempFolder } from "../lib/core/scratch.ts";
import { displayWidth, padEnd, wrapHanging } from "../lib/core/text.ts";
import { Trace } from "../lib/core/trace.ts";
import { CALLERS, runServers } from "../lib/middleware/cells.ts";
import { noteFor } from "../lib/middleware/explain.ts";
import {
  isServerName,
  PACKAGES,
  SERVER_NAMES,
  type ServerName,
} from "../lib/middleware/servers.ts";
import { installedVersion } from "../lib/middleware/sources.ts";
import {
  notSafeLine,
  statusesCell,
  type TableRow,
  tableJson,
  tableRows,
  verdictCell,
  verdictGrid,
  verdictMeaning,
  verdictName,
} from "../lib/middleware/table.ts";
import { trackerRule, wiring } from "../lib/middleware/wiring.ts";
import { caseHelp } from "../lib/probe/texts.ts";
import { CASES, VERDICTS } from "../lib/probe/verdict.ts";

const setup = lessonSetup(import.meta, {
  options: { only: { type: "string" }, json: { type: "boolean" } },
  optionHelp: {
    only: t("run one server only: {servers}", { servers: SERVER_NAMES.join(", ") }),
    json: t(
      'print only the table, as JSON: {"rows":[{"server","case","statuses","rows","verdict"}]}',
    ),
  },
});
const { seed, values, heading } = setup;
const only = values.only;
if (only !== undefined && !isServerName(only)) {
  exitWithUsage(
    t('--only takes one of {servers}; got "{only}"', { servers: SERVER_NAMES.join(", "), only }),
  );
}
const servers: readonly ServerName[] = only === undefined ? SERVER_NAMES : [only];
const json = values.json === true;
// With --json the chapter runs all the same, into a trace that keeps nothing; only the JSON is
// printed, its names fixed (English) whatever the language.
const trace = json ? new Trace({ color: false, step: false, write: () => {} }) : setup.trace;
const started = nowMs();

trace.title(heading);
trace.prose(
  t(`Lessons 04 and 05 built a keyed tracker by hand. At work the question comes the other
  way round: "we added an idempotency middleware from npm; are we safe now?" Here three of them
  stand in front of the same handler, which files one bug report per call: one INSERT into a SQLite
  file, then 201. The workbook's fenced tracker stands beside them as the reference. Nothing in the
  tables below is written by hand: every status, row count and verdict comes from this run.`),
);

// ## The four servers
// Each wired the way its own README says; where that was not possible, the lines that are ours are
// named. The code is in lib/middleware/ (express-idempotency-server.ts, node-idempotency-server.ts,
// powertools-server.ts with powertools-sqlite.ts); the handler is lib/middleware/handler.ts.
trace.section(t("The four servers, and which lines are ours"));
const [readmeLabel = "", oursLabel = ""] = sameWidth([t("README:"), t("ours:")]).map(spaced);
for (const server of servers) {
  const versions = PACKAGES[server].map((p) => `${p} ${installedVersion(p)}`).join(", ");
  trace.line(
    `  ${trace.style("bold", server)}  ` +
      `${trace.style("gray", versions || t("lib/tracker, variant fenced"))}`,
  );
  item(`    ${readmeLabel}`, wiring(server).readme);
  for (const line of wiring(server).ours) item(`    ${oursLabel}`, line);
}

/** A list item, wrapped, its continuation lines under its text. */
function item(label: string, text: string): void {
  for (const l of wrapHanging(label, text, trace.width)) trace.line(l);
}
/** A label and the space after it; none after a Chinese colon, which holds its own. */
function spaced(label: string): string {
  return label.endsWith("：") ? label : `${label} `;
}
/** Labels padded to the widest, by display width (a Chinese character takes two columns). */
function sameWidth(labels: readonly string[]): string[] {
  const width = Math.max(...labels.map(displayWidth));
  return labels.map((l) => padEnd(l, width));
}

// ## The ten cases
// The client is the same everywhere: one key per logical operation, reused on every retry, up to 4
// attempts, retrying when there is no answer, on 409, 429 and 5xx, after 100, 200 and 400 ms. The
// callers are two Authorization headers. Ordering is by gates: the held handler lets go when the
// second request has its answer, the crash comes from the handler itself, right after its INSERT.
trace.section(t("The ten cases"));
trace.table(
  [t("case"), t("what is sent")],
  CASES.map((c) => [c, caseHelp(c)]),
);
trace.prose(
  t(
    `The first caller is "{first}", the second "{second}". A fresh server and SQLite file for
    every case; rows are counted in the file afterwards.`,
    CALLERS,
  ),
);

// ## Measuring
// The servers run side by side, each through its ten cases in turn. The crash case starts the
// server in a child process twice: once to die, once on the same file and port.
trace.section(t("Measuring"));
const scratch = tempFolder("lesson-11-");
let runs;
try {
  runs = await runServers(
    servers,
    { scratch: (name) => `${scratch.dir}/${name}`, seed },
    (server, done, ms) => {
      const seconds = (ms / 1000).toFixed(1);
      trace.event(
        "lesson",
        t("{server}: {count} cases in {seconds} s", { server, count: done.length, seconds }),
        "ok",
      );
    },
  );
} finally {
  scratch.remove();
}
const rows: TableRow[] = servers.flatMap((s) => tableRows(s, runs.get(s) ?? []));

// ## The table
// statuses: every answer the client got, in the order it came ("lost": the proxy threw the answer
// away; "reset": the connection died with the process). rows: reports stored by the case.
for (const server of servers) {
  trace.section(t("{server}: what the client saw, what was stored", { server }));
  const mine = rows.filter((r) => r.server === server);
  trace.table(
    [t("case"), t("statuses"), t("rows"), t("verdict")],
    mine.map((r) => [r.case, statusesCell(r.statuses), String(r.rows), verdictCell(r)]),
  );
}
trace.section(t("The verdicts side by side"));
const grid = verdictGrid(servers, rows);
trace.table(grid.header, grid.body);
const verdictWidth = Math.max(10, ...VERDICTS.map((v) => displayWidth(verdictName(v))));
for (const v of VERDICTS) item(`  ${padEnd(verdictName(v), verdictWidth)} `, verdictMeaning(v));

// ## Why, from the source
// Each cell that is not safe, and each safe one whose statuses need a word, explained from the
// installed package. Places read "package file:line", the file under node_modules/package/; the
// line is found in the installed copy now, so an upgrade that moved the code says so.
trace.section(t("Why: each surprising cell, from the package's source"));
for (const server of servers) {
  const notes = rows.flatMap((r) => {
    const note = r.server === server ? noteFor(server, r.case, r.verdict) : undefined;
    return note ? [{ row: r, note }] : [];
  });
  if (notes.length === 0) continue;
  trace.line(`  ${trace.style("bold", server)}`);
  for (const { row, note } of notes) {
    trace.line(`    ${t("{case}: {verdict}", { case: row.case, verdict: verdictCell(row) })}`);
    item("      ", note);
  }
}

// ## What follows
trace.section(t("What follows"));
const serverWidth = Math.max(...servers.map(displayWidth));
for (const server of servers) item(`  ${padEnd(server, serverWidth)}  `, notSafeLine(server, rows));
// The tracker's rules that kept its cell safe where a package's was not, for the cases this run
// found.
const fenced = rows.filter((r) => r.server === "fenced" && r.verdict === "safe").map((r) => r.case);
const beaten = fenced.filter((c) =>
  rows.some((r) => r.case === c && r.server !== "fenced" && r.verdict !== "safe"),
);
if (beaten.length > 0) {
  trace.prose(
    t(`Where the fenced tracker was safe and a package was not, this is the rule that made the
    difference:`),
  );
  for (const c of beaten) item(`    ${spaced(t("{case}:", { case: c }))}`, trackerRule(c) ?? "");
}
trace.prose(
  t(`A package is a start; the rules it lacks are what a few lines around it must add.
  Exercise 11a adds one: scope express-idempotency's keys to the caller, around the package, checked
  by the probe's own other-caller check (npm run check 11a).`),
);
trace.prose(
  t(`Your own service: npm run probe -- --url http://127.0.0.1:3000/orders --count-url
  http://127.0.0.1:3000/orders runs the same cases from outside, through the same fault proxy, and
  says which it could not run and why (no count, no second caller, no restart command). It exits
  non-zero when a check fails, so a CI job can run it. It sends duplicates on purpose: loopback
  only, unless --allow-remote.`),
);
trace.prose(
  t(`The statuses and rows are the same on every run; the seconds a stuck key was refused
  vary with the machine.`),
);
trace.prose(t("Measured in {seconds} s.", { seconds: ((nowMs() - started) / 1000).toFixed(1) }));

if (json) process.stdout.write(`${tableJson(rows)}\n`);
