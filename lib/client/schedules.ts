/**
 * Backoff schedules as tables, retry by retry: for each rule the range a wait can fall in
 * (`delayBounds`) and one client's seeded draw, for lesson 02. All in ms.
 */
import { t } from "../core/i18n.ts";
import type { Random } from "../core/random.ts";
import {
  anthropicSdkDelayMs,
  codexBackoffMs,
  type DelayBounds,
  delayBounds,
  HERD_PARAMS,
  makeBackoff,
} from "./backoff.ts";

/** A wait for a table: whole milliseconds from 100 up, one decimal below, grouped ("1,280"). */
export function scheduleMs(x: number): string {
  return x.toLocaleString("en-US", { maximumFractionDigits: x >= 100 ? 0 : 1 });
}

/** "5–45", or one value when the range is a point. */
export function rangeMs(lowMs: number, highMs: number): string {
  return lowMs === highMs ? scheduleMs(lowMs) : `${scheduleMs(lowMs)}–${scheduleMs(highMs)}`;
}

export interface ScheduleTable {
  header: string[];
  rows: string[][];
}

/**
 * The six rules the course compares, as formulas: the AWS blog's four (its simulator counts the
 * first retry as n = 1, so the first exponential wait is 2 × base) and the two real clients'.
 */
export function formulaTable(): ScheduleTable {
  const aws = t("AWS blog ¹");
  return {
    header: [t("strategy"), t("wait before retry n"), t("source")],
    rows: [
      ["exponential", t("v_n = min(cap, base × 2^n), no jitter"), aws],
      ["full", "uniform(0, v_n)", aws],
      ["equal", "v_n/2 + uniform(0, v_n/2)", aws],
      ["decorrelated", "s_n = min(cap, uniform(base, 3 × s_(n−1))), s_0 = base", aws],
      ["codex", t("200 ms × 2^(n−1) × uniform[0.9, 1.1), no cap"), "openai/codex ²"],
      [
        "anthropic-sdk",
        "min(0.5 s × 2^k, 8 s) × (1 − 0.25 r), k = n − 1",
        "anthropic-sdk-python ³",
      ],
    ],
  };
}

const AWS_FOUR = ["exponential", "full", "equal", "decorrelated"] as const;

/**
 * The AWS four with the simulator's base and cap, retries 1 to `retries`: exponential's value, and
 * for the jittered three the range then one client's draw (one client per rule, drawn in turn from
 * `random`). Decorrelated jitter's range is every wait any history could reach by retry n.
 */
export function awsScheduleTable(random: Random, retries = 8): ScheduleTable {
  const draws = AWS_FOUR.map((name) => {
    const client = makeBackoff(name, HERD_PARAMS, random);
    return Array.from({ length: retries }, (_, i) => client.nextDelayMs(i + 1));
  });
  return {
    header: ["n", "exponential = v_n", ...AWS_FOUR.slice(1)],
    rows: Array.from({ length: retries }, (_, i) => [
      `n = ${i + 1}`,
      ...AWS_FOUR.map((name, j) => {
        const b = delayBounds(name, i + 1, HERD_PARAMS);
        return name === "exponential"
          ? scheduleMs(b.lowMs)
          : `${rangeMs(b.lowMs, b.highMs)} → ${scheduleMs(draws[j]![i]!)}`;
      }),
    ]),
  };
}

export interface ClientScheduleTable extends ScheduleTable {
  /** Codex's and the SDK's bounds for retries 1 to `retries`. */
  codex: DelayBounds[];
  sdk: DelayBounds[];
  /**
   * For a sentence: Codex's span around its nominal wait and its 4th retry's range, the SDK's span
   * and its 4th retry's nominal wait, and Codex's last retry's range (it has no cap).
   */
  facts: Record<"codexSpan" | "low" | "high" | "sdkSpan" | "nominal" | "last", string>;
}

/**
 * Codex's and the Anthropic SDK's own constants, retries 1 to `retries`: each one's range and a
 * draw (Codex's first, then the SDK's), and the SDK's k and nominal wait. Codex's nominal wait is
 * left out: exercise 02a asks for it.
 */
export function clientScheduleTable(random: Random, retries = 8): ClientScheduleTable {
  const n = Array.from({ length: retries }, (_, i) => i + 1);
  const codexDraws = n.map((r) => codexBackoffMs(r, random));
  const sdkDraws = n.map((r) => anthropicSdkDelayMs(r - 1, random));
  const codex = n.map((r) => delayBounds("codex", r, HERD_PARAMS));
  const sdk = n.map((r) => delayBounds("anthropic-sdk", r, HERD_PARAMS));
  return {
    header: [
      t("retry"),
      t("codex range"),
      t("codex draw"),
      "sdk k",
      t("sdk nominal"),
      t("sdk range"),
      t("sdk draw"),
    ],
    rows: n.map((r, i) => [
      t("retry {n}", { n: r }),
      rangeMs(codex[i]!.lowMs, codex[i]!.highMs),
      scheduleMs(codexDraws[i]!),
      String(i),
      scheduleMs(sdk[i]!.nominalMs!),
      rangeMs(sdk[i]!.lowMs, sdk[i]!.highMs),
      scheduleMs(sdkDraws[i]!),
    ]),
    codex,
    sdk,
    facts: {
      codexSpan: jitterSpan(codex[3]!),
      low: scheduleMs(codex[3]!.lowMs),
      high: scheduleMs(codex[3]!.highMs),
      sdkSpan: jitterSpan(sdk[3]!),
      nominal: scheduleMs(sdk[3]!.nominalMs!),
      last: rangeMs(codex.at(-1)!.lowMs, codex.at(-1)!.highMs),
    },
  };
}

/** How far a rule's range reaches either side of its nominal wait: "−10 % to +10 %". */
export function jitterSpan(b: DelayBounds): string {
  const signed = (x: number): string =>
    `${x > 0 ? "+" : x < 0 ? "−" : ""}${Math.round(Math.abs(x)).toLocaleString("en-US")} %`;
  const nominal = b.nominalMs ?? 0;
  return t("{low} to {high}", {
    low: signed((100 * (b.lowMs - nominal)) / nominal),
    high: signed((100 * (b.highMs - nominal)) / nominal),
  });
}
