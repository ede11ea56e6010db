/**
 * Demo 1's parameters and the URL that carries them, so a run is a link anyone can reopen:
 * `/herd?clients=10,50,100&strategies=full,exponential&runs=100&seed=7&base=5&cap=2000&mean=10&sd=2`.
 * Used by the server (to fill the form) and by the page (to run it). Each maps to a flag of
 * `npm run herd` (`cliArgs`), which prints the same CSV for the same parameters.
 */
import { HERD_PARAMS } from "../../client/backoff.ts";
import {
  HERD_LATENCY,
  HERD_STRATEGIES,
  type HerdStrategy,
  isHerdStrategy,
  type SweepSpec,
} from "../../herd/simulator.ts";
import type { Text } from "../lang.ts";

export interface HerdParams {
  /** Client counts in the order given, without repeats. */
  clients: number[];
  /** As typed: "10,50,100" or "10..190:10". */
  clientsText: string;
  /** In the CLI's order (HERD_STRATEGIES). */
  strategies: HerdStrategy[];
  runs: number;
  seed: number;
  baseMs: number;
  capMs: number;
  meanMs: number;
  sdMs: number;
}

export const LIMITS = {
  maxClients: 200,
  maxCounts: 100,
  maxRuns: 10_000,
  maxMs: 1_000_000,
} as const;

export const DEFAULTS: HerdParams = {
  clients: [10, 50, 100],
  clientsText: "10,50,100",
  strategies: [...HERD_STRATEGIES],
  runs: 100,
  seed: 1,
  baseMs: HERD_PARAMS.baseMs,
  capMs: HERD_PARAMS.capMs,
  meanMs: HERD_LATENCY.meanMs,
  sdMs: HERD_LATENCY.sdMs,
};

/** The AWS original's whole sweep: N = 10..190 step 10, 100 runs a point, every strategy. */
export const ORIGINAL_SWEEP_QUERY = "clients=10..190:10&runs=100";

/** The form fields, which are also the URL's parameter names. */
export type Field = "clients" | "strategies" | "runs" | "seed" | "base" | "cap" | "mean" | "sd";

export interface ParamError {
  field: Field;
  message: Text;
}

export type Parsed =
  | { ok: true; params: HerdParams }
  | { ok: false; errors: ParamError[]; params: HerdParams };

/**
 * "10,50,100", "10..190:10" (10 to 190 step 10), "5..8" (step 1) or a mix; each count 1-200.
 * Returns undefined if the text is not of that form or a count is out of range.
 */
export function parseClients(text: string): number[] | undefined {
  const out: number[] = [];
  const parts = text.split(",").map((p) => p.trim());
  if (parts.length === 0 || parts.every((p) => p === "")) return undefined;
  for (const part of parts) {
    const range = /^(\d+)\s*\.\.\s*(\d+)(?:\s*:\s*(\d+))?$/.exec(part);
    if (range !== null) {
      const [from, to, step] = [Number(range[1]), Number(range[2]), Number(range[3] ?? 1)];
      if (step < 1 || to < from) return undefined;
      for (let n = from; n <= to; n += step) {
        out.push(n);
        if (out.length > LIMITS.maxCounts) return undefined;
      }
    } else if (/^\d+$/.test(part)) out.push(Number(part));
    else return undefined;
  }
  if (out.some((n) => n < 1 || n > LIMITS.maxClients)) return undefined;
  const unique = [...new Set(out)];
  return unique.length > LIMITS.maxCounts ? undefined : unique;
}

function num(
  text: string | null,
  fallback: number,
  check: (n: number) => boolean,
  integer: boolean,
): number | undefined {
  if (text === null || text.trim() === "") return fallback;
  const t = text.trim();
  if (!(integer ? /^-?\d+$/ : /^\d+(\.\d+)?$/).test(t)) return undefined;
  const n = Number(t);
  return Number.isFinite(n) && check(n) ? n : undefined;
}

/** Reads the parameters from a URL's query (missing ones take the defaults). */
export function parseParams(query: URLSearchParams): Parsed {
  const errors: ParamError[] = [];
  const params: HerdParams = {
    ...DEFAULTS,
    clients: [...DEFAULTS.clients],
    strategies: [...DEFAULTS.strategies],
  };

  const clientsText = query.get("clients");
  if (clientsText !== null && clientsText.trim() !== "") {
    params.clientsText = clientsText.trim();
    const clients = parseClients(clientsText);
    if (clients === undefined) {
      errors.push({
        field: "clients",
        message: {
          en: `Clients: whole numbers from 1 to ${LIMITS.maxClients}, as a list (10,50,100) or a sweep (10..190:10), at most ${LIMITS.maxCounts} counts.`,
          zh: `客户端数：1 到 ${LIMITS.maxClients} 的整数，写成列表（10,50,100）或扫描（10..190:10），最多 ${LIMITS.maxCounts} 个。`,
        },
      });
    } else params.clients = clients;
  }

  const named = query
    .getAll("strategies")
    .flatMap((v) => v.split(","))
    .map((s) => s.trim())
    .filter((s) => s !== "");
  if (query.has("strategies")) {
    const bad = named.filter((s) => !isHerdStrategy(s));
    const chosen = HERD_STRATEGIES.filter((s) => named.includes(s));
    if (bad.length > 0 || chosen.length === 0) {
      errors.push({
        field: "strategies",
        message: {
          en: `Strategies: choose at least one of ${HERD_STRATEGIES.join(", ")}.`,
          zh: `退避策略：至少选一种（${HERD_STRATEGIES.join("、")}）。`,
        },
      });
    } else params.strategies = chosen;
  }

  const runs = num(query.get("runs"), DEFAULTS.runs, (n) => n >= 1 && n <= LIMITS.maxRuns, true);
  if (runs === undefined)
    errors.push({
      field: "runs",
      message: {
        en: `Runs: a whole number from 1 to ${LIMITS.maxRuns}.`,
        zh: `运行次数：1 到 ${LIMITS.maxRuns} 的整数。`,
      },
    });
  else params.runs = runs;

  const seed = num(query.get("seed"), DEFAULTS.seed, (n) => Number.isSafeInteger(n), true);
  if (seed === undefined)
    errors.push({
      field: "seed",
      message: { en: "Seed: a whole number.", zh: "种子：一个整数。" },
    });
  else params.seed = seed;

  const base = num(query.get("base"), DEFAULTS.baseMs, (n) => n > 0 && n <= LIMITS.maxMs, false);
  if (base === undefined)
    errors.push({
      field: "base",
      message: { en: "Base: a number of ms above 0.", zh: "退避基数：大于 0 的毫秒数。" },
    });
  else params.baseMs = base;

  const cap = num(query.get("cap"), DEFAULTS.capMs, (n) => n > 0 && n <= LIMITS.maxMs, false);
  if (cap === undefined || cap < params.baseMs) {
    errors.push({
      field: "cap",
      message: {
        en: "Cap: a number of ms, at least the base.",
        zh: "封顶值：不小于退避基数的毫秒数。",
      },
    });
  } else params.capMs = cap;

  const mean = num(query.get("mean"), DEFAULTS.meanMs, (n) => n > 0 && n <= LIMITS.maxMs, false);
  if (mean === undefined)
    errors.push({
      field: "mean",
      message: {
        en: "Latency mean: a number of ms above 0.",
        zh: "网络延迟均值：大于 0 的毫秒数。",
      },
    });
  else params.meanMs = mean;

  const sd = num(query.get("sd"), DEFAULTS.sdMs, (n) => n >= 0 && n <= LIMITS.maxMs, false);
  if (sd === undefined)
    errors.push({
      field: "sd",
      message: {
        en: "Latency deviation: a number of ms, 0 or more.",
        zh: "网络延迟标准差：不小于 0 的毫秒数。",
      },
    });
  else params.sdMs = sd;

  return errors.length === 0 ? { ok: true, params } : { ok: false, errors, params };
}

/** The query string of `params` (without "?"), every value explicit, strategies as one list. */
export function toQuery(params: HerdParams): string {
  const q = new URLSearchParams();
  q.set("clients", params.clientsText);
  q.set("strategies", params.strategies.join(","));
  q.set("runs", String(params.runs));
  q.set("seed", String(params.seed));
  q.set("base", String(params.baseMs));
  q.set("cap", String(params.capMs));
  q.set("mean", String(params.meanMs));
  q.set("sd", String(params.sdMs));
  return q.toString().replaceAll("%2C", ",");
}

/** The sweep the page runs. The original's values are left out, exactly as `npm run herd` does. */
export function sweepSpec(params: HerdParams): SweepSpec {
  const spec: SweepSpec = {
    strategies: params.strategies,
    clients: params.clients,
    runs: params.runs,
    seed: params.seed,
  };
  if (params.baseMs !== HERD_PARAMS.baseMs || params.capMs !== HERD_PARAMS.capMs)
    spec.params = { baseMs: params.baseMs, capMs: params.capMs };
  if (params.meanMs !== HERD_LATENCY.meanMs || params.sdMs !== HERD_LATENCY.sdMs)
    spec.latency = { meanMs: params.meanMs, sdMs: params.sdMs };
  return spec;
}

/** The `npm run herd` flags that print the same CSV: `npm run herd -- --csv <these>`. */
export function cliArgs(params: HerdParams): string[] {
  return [
    `--clients=${params.clients.join(",")}`,
    `--strategies=${params.strategies.join(",")}`,
    `--runs=${params.runs}`,
    `--seed=${params.seed}`,
    `--base=${params.baseMs}`,
    `--cap=${params.capMs}`,
    `--latency-mean=${params.meanMs}`,
    `--latency-sd=${params.sdMs}`,
  ];
}
