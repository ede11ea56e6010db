/**
 * The trace printer: a lesson's narrated record of who did what. Actors are the agent (the client),
 * the harness, the server and the database; each line carries the running time since the case began.
 * Colour comes from `node:util` styleText and is off for NO_COLOR, `--no-color` or a non-terminal.
 */
import { styleText } from "node:util";
import { nowMs, waitForEnter } from "./clock.ts";

export type Actor = "agent" | "harness" | "model" | "server" | "database" | "network" | "notifier" | "outbox" | "lesson";
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
  /** Text width for prose. */
  width?: number;
}

/** Colour is wanted on a terminal, unless NO_COLOR is set or `--no-color` was given. */
export function colorWanted(noColorFlag: boolean, stream: NodeJS.WriteStream = process.stdout): boolean {
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
    this.#write = options.write ?? ((line) => process.stdout.write(line + "\n"));
    this.#width = options.width ?? 96;
  }

  /** Applies a style when colour is on. */
  style(format: Style, text: string): string {
    return this.#color ? styleText(format, text, { validateStream: false }) : text;
  }

  line(text = ""): void {
    this.#write(text);
  }

  /** A chapter heading: the lesson's title. */
  title(text: string): void {
    const bar = "═".repeat(Math.min(this.#width, Math.max(text.length + 4, 40)));
    this.#write(this.style("bold", `${bar}\n  ${text}\n${bar}`));
  }

  /** A section heading; restarts the clock so each case's times begin at 0. */
  section(text: string): void {
    this.#write("");
    this.#write(this.style(["bold", "underline"], text));
    this.#t0 = nowMs();
  }

  /** A paragraph of explanation, wrapped. */
  prose(text: string): void {
    for (const l of wrap(text.replace(/\s+/g, " ").trim(), this.#width - 2)) this.#write("  " + this.style("dim", l));
  }

  /** One event: what an actor did. */
  event(actor: Actor, text: string, mark?: "ok" | "bad" | "warn"): void {
    const ms = `${Math.round(nowMs() - this.#t0)} ms`.padStart(8);
    const who = this.style(ACTOR_STYLE[actor], actor.padEnd(9));
    const body = mark === "ok" ? this.style("green", text) : mark === "bad" ? this.style("red", text) : mark === "warn" ? this.style("yellow", text) : text;
    this.#write(`${this.style("gray", ms)}  ${who} ${body}`);
    if (this.#step) {
      if (this.#pause) this.#pause();
      else waitForEnter(this.style("gray", "          (Enter for the next event)"));
    }
  }

  /** What the client can know, set beside what really happened. */
  knows(clientKnows: string, reallyHappened: string): void {
    this.#write(`          ${this.style("cyan", "the agent knows:")} ${clientKnows}`);
    this.#write(`          ${this.style("magenta", "what happened:  ")} ${reallyHappened}`);
  }

  /** The count of reports after a case, marked when it is not what one logical call should leave. */
  count(stored: number, expected: number, what = "reports in the database"): void {
    const verdict =
      stored === expected
        ? this.style("green", "✓ as intended")
        : stored > expected
          ? this.style(["red", "bold"], `✗ DUPLICATE (${stored - expected} extra)`)
          : this.style(["red", "bold"], `✗ LOST (${expected - stored} missing)`);
    this.#write(`          ${this.style("bold", `${what}: ${stored}`)}  ${verdict}`);
  }

  /** A plain table with a header row. Cells are strings; widths are measured without colour codes. */
  table(header: string[], rows: string[][]): void {
    const widths = header.map((h, i) => Math.max(visible(h), ...rows.map((r) => visible(r[i] ?? ""))));
    const fmt = (cells: string[]): string =>
      "  " + cells.map((c, i) => c + " ".repeat(Math.max(0, widths[i]! - visible(c)))).join("  │  ");
    this.#write(this.style("bold", fmt(header)));
    this.#write("  " + widths.map((w) => "─".repeat(w)).join("──┼──"));
    for (const r of rows) this.#write(fmt(r));
  }
}

function visible(s: string): number {
  // eslint-disable-next-line no-control-regex
  return s.replace(/\u001b\[[0-9;]*m/g, "").length;
}

/** Greedy word wrap. */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let current = "";
  for (const word of text.split(" ")) {
    if (current && current.length + 1 + word.length > width) {
      lines.push(current);
      current = word;
    } else current = current ? `${current} ${word}` : word;
  }
  if (current) lines.push(current);
  return lines;
}
