/** Colour for the runner's commands: styleText when colour is wanted, plain text otherwise. */
import { styleText } from "node:util";

export type Style = Parameters<typeof styleText>[0];
export type Paint = (style: Style, text: string) => string;

export function painter(color: boolean): Paint {
  return (style, text) => (color ? styleText(style, text, { validateStream: false }) : text);
}

/** A bar of `width` cells for `done` of `total`, e.g. "███░░░░░░░". */
export function progressBar(done: number, total: number, width = 24): string {
  const full = total === 0 ? 0 : Math.round((done / total) * width);
  return "█".repeat(full) + "░".repeat(width - full);
}

/** "1.2 s" or "840 ms". */
export function duration(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`;
}

/** "1 exercise", "2 exercises". */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** "the exercise passes" or "all 3 exercises pass". */
export function allPass(n: number): string {
  return n === 1 ? "the exercise passes" : `all ${n} exercises pass`;
}
