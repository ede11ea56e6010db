/**
 * Charts as SVG documents, written by the workbook itself. This module is the small SVG writer:
 * elements as strings with their text escaped, and the scales that map data to pixels. What it writes
 * is a standalone SVG 1.1 document: no script, no external font, stylesheet or image (only the generic
 * `sans-serif` family), so a file opens offline in any browser or viewer.
 *
 * Pixel attributes are rounded to 0.01 px to keep files small; `data-*` attributes keep every digit,
 * so a chart can carry the exact values it plots (`data-x`, `data-y`) beside their positions.
 */

export type AttrValue = string | number | undefined;
export type Attrs = Readonly<Record<string, AttrValue>>;

/** Text for XML content or an attribute value: the five special characters as entities. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&${ENTITIES[c]!};`);
}

const ENTITIES: Record<string, string> = {
  "&": "amp",
  "<": "lt",
  ">": "gt",
  '"': "quot",
  "'": "apos",
};

/** A pixel value rounded to 0.01 (no "-0"). */
export function px(value: number): string {
  if (!Number.isFinite(value)) throw new RangeError(`not a finite pixel value: ${value}`);
  const r = Math.round(value * 100) / 100;
  return String(r === 0 ? 0 : r);
}

function attrText(name: string, value: string | number): string {
  if (typeof value === "string") return escapeXml(value);
  return name.startsWith("data-") ? String(value) : px(value);
}

/**
 * One element: `element("rect", { x: 1, width: 2 })` → `<rect x="1" width="2"/>`. Undefined
 * attributes are left out; children are markup already (use `escapeXml` or `textElement` for text).
 */
export function element(name: string, attrs: Attrs = {}, ...children: string[]): string {
  const list = Object.entries(attrs)
    .filter((entry): entry is [string, string | number] => entry[1] !== undefined)
    .map(([k, v]) => ` ${k}="${attrText(k, v)}"`)
    .join("");
  return children.length === 0
    ? `<${name}${list}/>`
    : `<${name}${list}>${children.join("")}</${name}>`;
}

/** A `<text>` element holding `content`, escaped. */
export function textElement(content: string, attrs: Attrs = {}): string {
  return element("text", attrs, escapeXml(content));
}

/** A `<title>` child: what a browser shows as a tooltip over its parent. */
export function tooltip(content: string): string {
  return element("title", {}, escapeXml(content));
}

export interface DocumentSpec {
  width: number;
  height: number;
  /** The document's title (also what screen readers announce). */
  title: string;
  /** A longer description, for `<desc>`. */
  description?: string;
}

/** A complete SVG document of `width` × `height` px on a white background. */
export function svgDocument(spec: DocumentSpec, children: readonly string[]): string {
  const root = element(
    "svg",
    {
      xmlns: "http://www.w3.org/2000/svg",
      version: "1.1",
      width: spec.width,
      height: spec.height,
      viewBox: `0 0 ${px(spec.width)} ${px(spec.height)}`,
      "font-family": "sans-serif",
      "font-size": 12,
    },
    "\n",
    tooltip(spec.title),
    spec.description === undefined ? "" : element("desc", {}, escapeXml(spec.description)),
    "\n",
    element("rect", { width: spec.width, height: spec.height, fill: "#ffffff" }),
    "\n",
    ...children.map((c) => `${c}\n`),
  );
  return `<?xml version="1.0" encoding="UTF-8"?>\n${root}\n`;
}

// --- Scales ---

export type ScaleKind = "linear" | "log" | "sqrt";

/** Maps values in `domain` to pixels in `range` (either may run backwards, as a y axis does). */
export interface Scale {
  readonly kind: ScaleKind;
  readonly domain: readonly [number, number];
  readonly range: readonly [number, number];
  map(value: number): number;
  /** Values worth a tick mark and a grid line, inside the domain. */
  ticks(): number[];
}

/** A scale of the given kind: the one way every chart builds its scales (and tests rebuild them). */
export function makeScale(
  kind: ScaleKind,
  domain: readonly [number, number],
  range: readonly [number, number],
): Scale {
  const [d0, d1] = domain;
  const [r0, r1] = range;
  if (!(Number.isFinite(d0) && Number.isFinite(d1) && d0 !== d1))
    throw new RangeError(`bad domain ${d0}..${d1}`);
  if (kind === "log" && !(d0 > 0 && d1 > 0))
    throw new RangeError(`a log scale needs a positive domain, got ${d0}..${d1}`);
  if (kind === "sqrt" && !(d0 >= 0 && d1 >= 0))
    throw new RangeError(`a square-root scale needs a domain >= 0, got ${d0}..${d1}`);
  const f = kind === "log" ? Math.log10 : kind === "sqrt" ? Math.sqrt : (v: number): number => v;
  const f0 = f(d0);
  const span = f(d1) - f0;
  return {
    kind,
    domain: [d0, d1],
    range: [r0, r1],
    map: (value) => r0 + ((f(value) - f0) / span) * (r1 - r0),
    ticks: () => (kind === "log" ? logTicks(d0, d1) : linearTicks(d0, d1)),
  };
}

/** A round step (1, 2 or 5 times a power of ten) that cuts `span` into about `count` parts. */
export function niceStep(span: number, count = 5): number {
  const raw = Math.abs(span) / Math.max(1, count);
  const p = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 5]) if (m * p >= raw) return m * p;
  return 10 * p;
}

/** The domain [lo, hi] widened to whole steps, for a linear axis; a single value gets room around it. */
export function niceLinearDomain(lo: number, hi: number, count = 5): [number, number] {
  if (lo === hi) {
    const pad = lo === 0 ? 1 : Math.abs(lo) / 2;
    return niceLinearDomain(lo - pad, hi + pad, count);
  }
  const step = niceStep(hi - lo, count);
  return [Math.floor(lo / step) * step, Math.ceil(hi / step) * step];
}

/** The domain [lo, hi] widened to round numbers (1, 2 or 5 times a power of ten), for a log axis. */
export function niceLogDomain(lo: number, hi: number): [number, number] {
  if (!(lo > 0 && hi > 0))
    throw new RangeError(`a log axis needs positive values, got ${lo}..${hi}`);
  const pLo = 10 ** Math.floor(Math.log10(lo));
  const a = [5, 2, 1].map((m) => m * pLo).find((v) => v <= lo * (1 + 1e-9)) ?? pLo;
  const pHi = 10 ** Math.floor(Math.log10(hi));
  const b = [1, 2, 5, 10].map((m) => m * pHi).find((v) => v >= hi * (1 - 1e-9)) ?? 10 * pHi;
  return [a, b > a ? b : a * 10];
}

function linearTicks(d0: number, d1: number): number[] {
  const lo = Math.min(d0, d1);
  const hi = Math.max(d0, d1);
  const step = niceStep(hi - lo);
  const ticks: number[] = [];
  for (let i = Math.ceil(lo / step); i * step <= hi + step * 1e-9; i++)
    ticks.push(roundTick(i * step, step));
  return ticks;
}

/** Powers of ten; over three and a half decades or fewer, their 2 and 5 multiples too. */
function logTicks(d0: number, d1: number): number[] {
  const lo = Math.min(d0, d1);
  const hi = Math.max(d0, d1);
  const decades = Math.log10(hi / lo);
  const multiples = decades <= 3.5 ? [1, 2, 5] : [1];
  const ticks: number[] = [];
  for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) {
    for (const m of multiples) {
      const v = roundTick(m * 10 ** e, 10 ** Math.min(0, e));
      if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) ticks.push(v);
    }
  }
  return ticks;
}

/** Drops floating-point dust (0.30000000000000004 → 0.3) at the precision of `step`. */
function roundTick(value: number, step: number): number {
  const decimals = Math.max(0, -Math.floor(Math.log10(step)) + 1);
  return Number(value.toFixed(Math.min(20, decimals)));
}

/** A tick label: thousands grouped; M for round millions. */
export function tickLabel(value: number): string {
  if (Math.abs(value) >= 1e6 && value % 1e5 === 0) return `${value / 1e6}M`;
  return value.toLocaleString("en-US", { maximumFractionDigits: 3 });
}

/** The attributes a plot's group carries so that its pixels can be mapped back to data. */
export function scaleAttrs(axis: "x" | "y", scale: Scale): Record<string, string> {
  return {
    [`data-${axis}-scale`]: scale.kind,
    [`data-${axis}-domain`]: `${scale.domain[0]} ${scale.domain[1]}`,
    [`data-${axis}-range`]: `${scale.range[0]} ${scale.range[1]}`,
  };
}

/** Rebuilds a scale from the attributes `scaleAttrs` wrote (what a test does to check a picture). */
export function scaleFromAttrs(axis: "x" | "y", attrs: Readonly<Record<string, string>>): Scale {
  const kind = attrs[`data-${axis}-scale`];
  const pair = (name: string): [number, number] => {
    const parts = (attrs[name] ?? "").split(" ").map(Number);
    if (parts.length !== 2 || parts.some((n) => !Number.isFinite(n)))
      throw new Error(`no ${name} on the plot`);
    return [parts[0]!, parts[1]!];
  };
  if (kind !== "linear" && kind !== "log" && kind !== "sqrt")
    throw new Error(`no data-${axis}-scale on the plot`);
  return makeScale(kind, pair(`data-${axis}-domain`), pair(`data-${axis}-range`));
}

/**
 * Colours that stay apart for the common kinds of colour blindness (Okabe & Ito, "Color Universal
 * Design", 2008), in the order series take them; the yellow is left out (too pale on white).
 */
export const PALETTE = [
  "#000000",
  "#E69F00",
  "#56B4E9",
  "#009E73",
  "#0072B2",
  "#D55E00",
  "#CC79A7",
] as const;

export function colorAt(index: number): string {
  return PALETTE[index % PALETTE.length]!;
}

/** A rough width of `text` in px at `fontSize` (sans-serif averages a little over half an em). */
export function textWidth(text: string, fontSize = 12): number {
  return text.length * fontSize * 0.6;
}
