/**
 * A crowd's first retries: many clients fail at the same instant and each draws the wait before
 * its first retry, with the real backoff functions (lib/client/backoff.ts). Counted in buckets of a
 * few ms, the waits show how far each rule's jitter spreads clients that failed together: not at all
 * (no jitter), a little (Codex's ±10 %, the Anthropic SDK's −25 %), or over the whole wait (full
 * jitter). Lesson 02 draws them as one sparkline per rule, on one scale.
 */
import {
  anthropicSdkDelayMs,
  type BackoffParams,
  codexBackoffMs,
  exponentialMs,
  fullJitterMs,
} from "../client/backoff.ts";
import { t } from "../core/i18n.ts";
import type { Random } from "../core/random.ts";
import { displayWidth, padEnd } from "../core/text.ts";
import { formatNumber, timeSparklines } from "./charts.ts";

/** One rule's first retries. */
export interface CrowdRow {
  name: string;
  /** The wait without jitter, ms. */
  nominalMs: number;
  /** Each client's wait before its first retry, ms. */
  waits: number[];
}

/** v_1 = 200 ms: the AWS rules given the same first wait as Codex, so only the jitter differs. */
const V200: BackoffParams = { baseMs: 100, capMs: 20_000 };

/**
 * `clients` waits for each of four rules, drawn from `random` in this order: no jitter (none
 * drawn), Codex, the Anthropic SDK, full jitter.
 */
export function firstRetryCrowd(random: Random, clients = 100): CrowdRow[] {
  const draw = (f: () => number): number[] => Array.from({ length: clients }, f);
  return [
    { name: t("no jitter"), nominalMs: 200, waits: draw(() => exponentialMs(1, V200)) },
    { name: "codex ±10 %", nominalMs: 200, waits: draw(() => codexBackoffMs(1, random)) },
    {
      name: "anthropic-sdk −25 %",
      nominalMs: 500,
      waits: draw(() => anthropicSdkDelayMs(0, random)),
    },
    { name: t("full jitter"), nominalMs: 200, waits: draw(() => fullJitterMs(1, V200, random)) },
  ];
}

export interface CrowdChart {
  /** The chart, indented by two columns, each line within the width asked for. */
  lines: string[];
  /** Per row: the time from the first retry to the last, ms. */
  spreadMs: number[];
  /** Per row: the most retries in one bucket. */
  busiest: number[];
  /**
   * What the rows of `firstRetryCrowd` show, for a sentence: the spike without jitter, Codex's and
   * the SDK's spread, the busiest bucket of Codex and of full jitter.
   */
  facts: Record<"all" | "codexSpread" | "codexBusiest" | "sdkSpread" | "fullBusiest", string>;
}

/** A wait for people: whole ms from 100 up, one decimal below. */
const ms = (x: number): string => formatNumber(x, x >= 100 ? 0 : 1);

/**
 * The crowd as sparklines over [0, `windowMs`), one `bucketMs` a column, one scale for every row;
 * each row's numbers beside it when `width` allows, else listed under the chart.
 */
export function crowdChart(
  crowd: readonly CrowdRow[],
  options: { windowMs: number; bucketMs: number; width: number },
): CrowdChart {
  const { windowMs, bucketMs, width } = options;
  const series = crowd.map((c) => ({ name: c.name, timesMs: c.waits }));
  const chart = timeSparklines(series, windowMs, windowMs / bucketMs);
  const spreadMs = crowd.map((c) => Math.max(...c.waits) - Math.min(...c.waits));
  const busiest = chart.counts.map((c) => Math.max(...c));
  const notes = crowd.map((c, i) =>
    t("all {clients} within {spread} ms ({share} % of {nominal}); busiest {bucket} ms: {most}", {
      clients: c.waits.length,
      spread: ms(spreadMs[i]!),
      share: formatNumber((100 * spreadMs[i]!) / c.nominalMs),
      nominal: c.nominalMs,
      bucket: bucketMs,
      most: busiest[i],
    }),
  );
  const beside = chart.rows.every((r, i) => displayWidth(`  ${r} ${notes[i]}`) <= width);
  const lines = chart.rows.map((r, i) => `  ${r}${beside ? ` ${notes[i]}` : ""}`);
  const nameWidth = Math.max(...crowd.map((c) => displayWidth(c.name)));
  const under = " ".repeat(nameWidth + 4);
  lines.push(`  ${chart.axis}`);
  const caption = t(
    "(first retries of {clients} clients that failed together, per {bucket} ms bucket; one scale for all rows)",
    { clients: crowd[0]?.waits.length ?? 0, bucket: bucketMs },
  );
  lines.push(`${under}${caption}`);
  if (!beside)
    for (const [i, c] of crowd.entries()) lines.push(`  ${padEnd(c.name, nameWidth)}  ${notes[i]}`);
  const facts = {
    all: String(busiest[0]),
    codexSpread: ms(spreadMs[1]!),
    codexBusiest: String(busiest[1]),
    sdkSpread: ms(spreadMs[2]!),
    fullBusiest: String(busiest[3]),
  };
  return { lines, spreadMs, busiest, facts };
}
