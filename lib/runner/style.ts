/** Colour for the runner's commands: styleText when colour is wanted, plain text otherwise. */
import { styleText } from "node:util";
import { displayWidth, stripAnsi } from "../core/text.ts";

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

/**
 * A label and the space after it: "edit: ", but "修改：" (a full-width colon holds its own space), so
 * that a Chinese label reads as written.
 */
export function labelled(label: string): string {
  return label.endsWith("：") ? label : `${label} `;
}

/**
 * The width of a column of labels (`labelled`), so that what follows them lines up: the widest label
 * and its space.
 */
export function labelColumn(labels: readonly string[]): number {
  return Math.max(...labels.map((l) => displayWidth(labelled(l))));
}

/**
 * Two sentences, one after the other: with a space between them, but none after a full-width stop
 * ("通过了！把你的答案…"), as Chinese is written.
 */
export function sentences(first: string, second: string): string {
  return /[。！？；：）]$/.test(stripAnsi(first)) ? first + second : `${first} ${second}`;
}
