/**
 * The machinery every lesson and tool shares; this module is the trace printer, a lesson's narrated
 * record of who did what. Actors are the agent (the client), the harness, the server and the
 * database; each line carries the running time since the case began.
 * Colour comes from `node:util` styleText and is off for NO_COLOR, `--no-color` or a non-terminal.
 */
import { styleText } from "node:util";
import { nowMs, waitForEnter } from "./clock.ts";
import { t } from "./i18n.ts";
import {
  displayWidth,
  padEnd,
  terminalWidth,
  truncate,
  widestWord,
  wrap,
  wrapHanging,
  wrapKeepingSpaces,
} from "./text.ts";

export type Actor =
  | "agent"
  | "harness"
  | "model"
  | "server"
  | "database"
  | "network"
  | "notifier"
  | "outbox"
  | "lesson";
type Style = Parameters<typeof styleText>[0];

const ACTOR_STYLE: Record<Actor, Style> = {
  agent: "cyan",
  harness: "blue",
  model: "blueBright",
  server: "magenta",
  database: "yellow",
  network: "gray",
  notifier: "green",
  outbox: "cyanBright",
  lesson: "white",
};

/** Each actor's name as the trace prints it. */
const ACTOR_NAME: Record<Actor, () => string> = {
  agent: () => t("agent"),
  harness: () => t("harness"),
  model: () => t("model"),
  server: () => t("server"),
  database: () => t("database"),
  network: () => t("network"),
  notifier: () => t("notifier"),
  outbox: () => t("outbox"),
  lesson: () => t("lesson"),
};

export interface TraceOptions {
  /** Colour on or off. Use `colorWanted()` for the usual rule. */
  color: boolean;
  /** Pause after each event until Enter (ignored when stdin is not a terminal). */
  step: boolean;
  /**
   * How a step pauses, instead of waiting for Enter on the terminal: a synchronous wait that holds
   * the whole process still (the demo page's stepper waits for its Step button this way).
   */
  pause?: () => void;
  /** Where lines go; defaults to stdout. Tests collect them. */
  write?: (line: string) => void;
  /** The width every line fits in; default `terminalWidth()` (the terminal, else $COLUMNS, else 100). */
  width?: number;
}

/** Colour is wanted on a terminal, unless NO_COLOR is set or `--no-color` was given. */
export function colorWanted(
  noColorFlag: boolean,
  stream: NodeJS.WriteStream = process.stdout,
): boolean {
  if (noColorFlag) return false;
  if (process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== "") return false;
  if (process.env.FORCE_COLOR !== undefined && process.env.FORCE_COLOR !== "0") return true;
  return Boolean(stream.isTTY);
}

export class Trace {
  readonly #color: boolean;
  readonly #step: boolean;
  readonly #pause: (() => void) | undefined;
  readonly #write: (line: string) => void;
  readonly #width: number;
  #t0 = nowMs();

  constructor(options: TraceOptions) {
    this.#color = options.color;
    this.#step = options.step;
    this.#pause = options.pause;
    this.#write = options.write ?? ((line) => process.stdout.write(`${line}\n`));
    this.#width = options.width ?? terminalWidth();
  }

  /** The width, in columns, that every line this trace writes fits in. */
  get width(): number {
    return this.#width;
  }

  /** Applies a style when colour is on. */
  style(format: Style, text: string): string {
    return this.#color ? styleText(format, text, { validateStream: false }) : text;
  }

  /**
   * A line as it is, if it fits; a line too wide is wrapped at spaces (or between Chinese characters),
   * its continuation lines indented under it (charts and tables are sized by whoever draws them, so
   * that they fit).
   */
  line(text = ""): void {
    for (const l of text.split("\n"))
      for (const piece of wrapKeepingSpaces(l, this.#width)) this.#write(piece);
  }

  /** A chapter heading: the lesson's title. */
  title(text: string): void {
    const lines = wrapHanging("  ", text, this.#width);
    const bar = "═".repeat(
      Math.min(this.#width, Math.max(...lines.map((l) => displayWidth(l) + 2), 40)),
    );
    this.#write(this.style("bold", `${bar}\n${lines.join("\n")}\n${bar}`));
  }

  /** A section heading; restarts the clock so each case's times begin at 0. */
  section(text: string): void {
    this.#write("");
    for (const l of wrap(text, this.#width)) this.#write(this.style(["bold", "underline"], l));
    this.#t0 = nowMs();
  }

  /** A paragraph of explanation: its lines are joined and wrapped again to the width, never mid-word. */
  prose(text: string): void {
    for (const l of wrap(text, this.#width - 2)) this.#write(`  ${this.style("dim", l)}`);
  }

  /** One event: what an actor did. A long one wraps, its continuation lines under its text. */
  event(actor: Actor, text: string, mark?: "ok" | "bad" | "warn"): void {
    const ms = `${Math.round(nowMs() - this.#t0)} ms`.padStart(8);
    const who = this.style(ACTOR_STYLE[actor], padEnd(ACTOR_NAME[actor](), 9));
    const paint = (t: string): string =>
      mark === "ok"
        ? this.style("green", t)
        : mark === "bad"
          ? this.style("red", t)
          : mark === "warn"
            ? this.style("yellow", t)
            : t;
    const prefix = `${this.style("gray", ms)}  ${who} `;
    const lines = this.#fit(prefix, text);
    for (const [i, l] of lines.entries())
      this.#write((i === 0 ? prefix : " ".repeat(displayWidth(prefix))) + paint(l));
    if (this.#step) {
      if (this.#pause) this.#pause();
      else waitForEnter(this.style("gray", `          ${t("(Enter for the next event)")}`));
    }
  }

  /**
   * What the client can know, set beside what really happened. `label` names who knows it where the
   * one who knows is not the agent (a connection, a dispatcher); it is padded to the other label's width.
   */
  knows(clientKnows: string, reallyHappened: string, label = t("the agent knows:")): void {
    const happened = t("what happened:");
    const width = Math.max(16, displayWidth(label), displayWidth(happened));
    const pair = [
      [`          ${this.style("cyan", padEnd(label, width))} `, clientKnows],
      [`          ${this.style("magenta", padEnd(happened, width))} `, reallyHappened],
    ] as const;
    for (const [prefix, text] of pair) {
      for (const [i, l] of this.#fit(prefix, text).entries())
        this.#write((i === 0 ? prefix : " ".repeat(displayWidth(prefix))) + l);
    }
  }

  /**
   * `text` in the columns left after `prefix`: as it is if it fits, else wrapped. A text written over
   * several source lines (a long template literal) is one line of words first.
   */
  #fit(prefix: string, text: string): string[] {
    const room = this.#width - displayWidth(prefix);
    if (text.includes("\n")) return wrap(text, Math.max(room, 10));
    if (displayWidth(text) <= room) return [text];
    return wrap(text, Math.max(room, 10));
  }

  /** The count of reports after a case, marked when it is not what one logical call should leave. */
  count(stored: number, expected: number, what = t("reports in the database")): void {
    const verdict =
      stored === expected
        ? this.style("green", t("✓ as intended"))
        : stored > expected
          ? this.style(["red", "bold"], t("✗ DUPLICATE ({n} extra)", { n: stored - expected }))
          : this.style(["red", "bold"], t("✗ LOST ({n} missing)", { n: expected - stored }));
    this.line(
      `          ${this.style("bold", t("{what}: {stored}", { what, stored }))}  ${verdict}`,
    );
  }

  /**
   * A plain table with a header row. Cells are strings; widths are measured without colour codes.
   * A table wider than the trace is fitted: the widest columns are narrowed first and their cells
   * wrap between words onto more lines (a row's first line holds the start of every cell); if
   * that is not enough the columns are set closer together, and as a last resort words are broken
   * and lines cut at the edge with "…".
   */
  table(header: string[], rows: string[][]): void {
    const all = [header, ...rows];
    const words = (c: string): number => Math.max(1, widestWord(c));
    const natural = header.map((_, i) => Math.max(...all.map((r) => displayWidth(r[i] ?? ""))));
    // Narrowing a column first wraps its header only, then its cells between words (the first column,
    // the row's label, last), then breaks words.
    const headerOnly = header.map((h, i) =>
      i === 0 ? natural[i]! : Math.max(words(h), ...rows.map((r) => displayWidth(r[i] ?? ""))),
    );
    const wordFloors = header.map((_, i) =>
      Math.min(natural[i]!, Math.max(...all.map((r) => words(r[i] ?? "")))),
    );
    const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);
    const gaps = Math.max(0, header.length - 1);
    // Indent and separator: as usual, then closer together, then without the indent.
    const layouts = [
      { indent: 2, bar: "  │  ", rule: "──┼──" },
      { indent: 2, bar: " │ ", rule: "─┼─" },
      { indent: 0, bar: " │ ", rule: "─┼─" },
    ];
    const room = (l: (typeof layouts)[number]): number =>
      this.#width - l.indent - l.bar.length * gaps;
    // For each layout: narrow the columns as little as the room needs (level 0: only headers wrap;
    // 1: cells wrap between words, but not the labels; 2: any cell between words; 3: words break,
    // but not the labels; 4: anything breaks).
    // Keep the plan of the lowest level, then the fewest lines, then the first layout.
    const firstWhole = [natural[0] ?? 0, ...wordFloors.slice(1)];
    const cellLines = (c: string, w: number): number =>
      displayWidth(c) <= w ? 1 : wrap(c, w).length;
    const plans = layouts.map((l) => {
      const six = natural.map((w) => Math.min(w, 6));
      const levels = [headerOnly, firstWhole, wordFloors, [natural[0] ?? 0, ...six.slice(1)]];
      const level = levels.findIndex((f) => sum(f) <= room(l));
      const floors = levels[level] ?? six;
      const widths = fitColumns(natural, room(l), floors);
      const lines = sum(
        all.map((row) => Math.max(...widths.map((w, i) => cellLines(row[i] ?? "", w)))),
      );
      return { layout: l, widths, level: level < 0 ? levels.length : level, lines };
    });
    const { layout, widths } = plans.reduce((best, p) =>
      p.level < best.level || (p.level === best.level && p.lines < best.lines) ? p : best,
    );
    const indent = " ".repeat(layout.indent);
    const bar = layout.bar;
    const fmt = (cells: string[]): string[] => {
      const wrapped = widths.map((w, i) => {
        const c = cells[i] ?? "";
        return displayWidth(c) <= w ? [c] : wrap(c, w);
      });
      const height = Math.max(...wrapped.map((c) => c.length));
      return Array.from({ length: height }, (_, k) =>
        truncate(
          indent + wrapped.map((c, i) => padEnd(c[k] ?? "", widths[i]!)).join(bar),
          this.#width,
        ),
      );
    };
    for (const l of fmt(header)) this.#write(this.style("bold", l));
    this.#write(truncate(indent + widths.map((w) => "─".repeat(w)).join(layout.rule), this.#width));
    for (const r of rows) for (const l of fmt(r)) this.#write(l);
  }
}

/**
 * Column widths that fit in `room` columns: while the sum is too large, the widest column that is
 * still above its floor loses one column. If even the floors do not fit, the floors are returned.
 */
export function fitColumns(
  natural: readonly number[],
  room: number,
  floor: readonly number[] = natural.map((w) => Math.min(w, 8)),
): number[] {
  const widths = [...natural];
  let total = widths.reduce((a, b) => a + b, 0);
  while (total > room) {
    let widest = -1;
    for (let i = 0; i < widths.length; i++)
      if (widths[i]! > floor[i]! && (widest < 0 || widths[i]! > widths[widest]!)) widest = i;
    if (widest < 0) break;
    widths[widest]!--;
    total--;
  }
  return widths;
}
