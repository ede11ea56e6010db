/**
 * Charts as SVG documents, drawn with lib/charts/svg.ts: lines over a shared x axis (linear or log y),
 * histograms as one small panel per series, and horizontal bars. Pure functions that return the
 * document as a string.
 *
 * Every plotted value is in the markup twice: as pixels, and exactly, in `data-x` / `data-y` (or
 * `data-value`) attributes; each plot's group carries its scales (`data-x-scale`, `data-x-domain`,
 * `data-x-range`, the same for y), so a reader (or a test) can map the pixels back to the values.
 */
import {
  colorAt,
  element,
  makeScale,
  niceLinearDomain,
  niceLogDomain,
  px,
  type Scale,
  scaleAttrs,
  svgDocument,
  textElement,
  textWidth,
  tickLabel,
  tooltip,
} from "./svg.ts";

const GRID = "#e3e3e3";
const AXIS = "#555555";
const MUTED = "#555555";
const TITLE_SIZE = 16;

/** Title and subtitle at the top left; returns the markup and where the content may start. */
function heading(
  title: string,
  subtitle: string | undefined,
  left: number,
): { markup: string[]; top: number } {
  const markup = [
    textElement(title, { x: left, y: 26, "font-size": TITLE_SIZE, "font-weight": "bold" }),
  ];
  if (subtitle !== undefined) markup.push(textElement(subtitle, { x: left, y: 45, fill: MUTED }));
  return { markup, top: subtitle === undefined ? 44 : 62 };
}

/** Grid lines and labels for a y scale across [left, right]. */
function yAxis(scale: Scale, left: number, right: number): string[] {
  return scale.ticks().map((t) => {
    const y = px(scale.map(t));
    return element(
      "g",
      { class: "y-tick" },
      element("line", { x1: left, x2: right, y1: y, y2: y, stroke: GRID }),
      textElement(tickLabel(t), {
        x: left - 6,
        y: scale.map(t) + 4,
        "text-anchor": "end",
        fill: MUTED,
      }),
    );
  });
}

/** Tick marks and labels for an x scale under `bottom`, with grid lines up to `top`. */
function xAxis(scale: Scale, top: number, bottom: number, unit = ""): string[] {
  return scale.ticks().map((t) => {
    const x = px(scale.map(t));
    return element(
      "g",
      { class: "x-tick" },
      element("line", { x1: x, x2: x, y1: top, y2: bottom, stroke: GRID }),
      element("line", { x1: x, x2: x, y1: bottom, y2: bottom + 4, stroke: AXIS }),
      textElement(`${tickLabel(t)}${unit}`, {
        x: scale.map(t),
        y: bottom + 17,
        "text-anchor": "middle",
        fill: MUTED,
      }),
    );
  });
}

export interface LineSeries {
  name: string;
  /** One y per x of the chart, in the same order. */
  values: readonly number[];
  /** Default: the palette's colour for the series' place in the list. */
  color?: string;
  /** A dash pattern (SVG stroke-dasharray, e.g. "6 3"), so lines differ by more than colour. Default solid. */
  dash?: string;
}

export interface LineChartSpec {
  title: string;
  subtitle?: string;
  xLabel: string;
  yLabel: string;
  /** The x values, shared by every series. */
  xs: readonly number[];
  series: readonly LineSeries[];
  /** "log" for values that span orders of magnitude (all must then be > 0). Default "linear". */
  yScale?: "linear" | "log";
  width?: number;
  height?: number;
  /** Appended to the y label on a log scale. Default " (log scale)". */
  logNote?: string;
}

/**
 * A line per series over the shared x values, a dot at each point (with a tooltip), and a legend on
 * the right in the order of the lines' last values, top to bottom.
 */
export function lineChartSvg(spec: LineChartSpec): string {
  const width = spec.width ?? 760;
  const height = spec.height ?? 440;
  if (spec.xs.length === 0) throw new RangeError("a line chart needs at least one x value");
  for (const s of spec.series) {
    if (s.values.length !== spec.xs.length)
      throw new RangeError(
        `series ${s.name} has ${s.values.length} values for ${spec.xs.length} x values`,
      );
  }
  const legendWidth = 24 + Math.max(60, ...spec.series.map((s) => textWidth(s.name)));
  const left = 78;
  const right = width - legendWidth - 24;
  const { markup, top } = heading(spec.title, spec.subtitle, 16);
  const bottom = height - 52;

  const values = spec.series.flatMap((s) => s.values);
  const log = spec.yScale === "log";
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  const yDomain = log ? niceLogDomain(lo, hi) : niceLinearDomain(Math.min(0, lo), hi);
  const y = makeScale(log ? "log" : "linear", yDomain, [bottom, top]);
  const x = makeScale("linear", niceLinearDomain(Math.min(...spec.xs), Math.max(...spec.xs), 10), [
    left,
    right,
  ]);

  const body: string[] = [...markup, ...yAxis(y, left, right), ...xAxis(x, top, bottom)];
  body.push(element("line", { x1: left, x2: right, y1: bottom, y2: bottom, stroke: AXIS }));
  body.push(element("line", { x1: left, x2: left, y1: top, y2: bottom, stroke: AXIS }));
  body.push(
    textElement(spec.xLabel, { x: (left + right) / 2, y: height - 14, "text-anchor": "middle" }),
  );
  const yMid = (top + bottom) / 2;
  body.push(
    textElement(`${spec.yLabel}${log ? (spec.logNote ?? " (log scale)") : ""}`, {
      x: 18,
      y: yMid,
      "text-anchor": "middle",
      transform: `rotate(-90 18 ${px(yMid)})`,
    }),
  );

  const colors = spec.series.map((s, i) => s.color ?? colorAt(i));
  const plot = spec.series.map((s, i) => {
    const color = colors[i]!;
    const points = s.values.map((v, j) => ({ x: spec.xs[j]!, y: v })).sort((a, b) => a.x - b.x);
    const d = points
      .map((p, j) => `${j === 0 ? "M" : "L"}${px(x.map(p.x))} ${px(y.map(p.y))}`)
      .join(" ");
    return element(
      "g",
      { class: "series", "data-series": s.name, fill: color, stroke: color },
      element("path", {
        d,
        fill: "none",
        "stroke-width": 2,
        "stroke-linejoin": "round",
        "stroke-dasharray": s.dash,
      }),
      ...points.map((p) =>
        element(
          "circle",
          {
            class: "point",
            cx: x.map(p.x),
            cy: y.map(p.y),
            r: 2.5,
            stroke: "none",
            "data-x": p.x,
            "data-y": p.y,
          },
          tooltip(
            `${s.name}, ${spec.xLabel} ${tickLabel(p.x)}: ${tickLabel(Math.round(p.y * 10) / 10)}`,
          ),
        ),
      ),
    );
  });
  body.push(element("g", { class: "plot", ...scaleAttrs("x", x), ...scaleAttrs("y", y) }, ...plot));

  // The legend, ordered as the lines end, top to bottom.
  const order = spec.series
    .map((s, i) => ({ s, i }))
    .sort((a, b) => (b.s.values.at(-1) ?? 0) - (a.s.values.at(-1) ?? 0));
  const legendX = right + 24;
  body.push(
    element(
      "g",
      { class: "legend" },
      ...order.map(({ s, i }, row) => {
        const ly = top + 6 + row * 20;
        return element(
          "g",
          {},
          element("line", {
            x1: legendX,
            x2: legendX + 16,
            y1: ly,
            y2: ly,
            stroke: colors[i],
            "stroke-width": 2,
            "stroke-dasharray": s.dash,
          }),
          element("circle", { cx: legendX + 8, cy: ly, r: 2.5, fill: colors[i] }),
          textElement(s.name, { x: legendX + 22, y: ly + 4 }),
        );
      }),
    ),
  );
  return svgDocument(
    { width, height, title: spec.title, ...(spec.subtitle ? { description: spec.subtitle } : {}) },
    body,
  );
}

export interface HistogramRow {
  name: string;
  /** Counts per bucket, from time 0 on. */
  counts: readonly number[];
  /** Default: the palette's colour for the row's place in the list. */
  color?: string;
}

export interface HistogramSpec {
  title: string;
  subtitle?: string;
  rows: readonly HistogramRow[];
  /** The time axis runs from 0 to here, ms; each row has the same number of buckets over it. */
  untilMs: number;
  /** How many runs the counts add up, to print each row's peak per run. Default 1. */
  runs?: number;
  /** Heights by the square root of the count (small buckets stay visible). Default false. */
  sqrt?: boolean;
  /** One scale for every row instead of each row to its own peak. Default false. */
  sharedScale?: boolean;
  width?: number;
  /** The time axis' label. Default "time since the clients started (ms)". */
  xLabel?: string;
  /** The note right of each panel. Default "peak <n>" and " / run" when the counts add up several runs. */
  peakLabel?: (peak: string, perRun: boolean) => string;
  /** A bar's tooltip. Default "<name>, <from>-<to> ms: <count> writes over <runs> runs". */
  barTooltip?: (name: string, from: string, to: string, count: number, runs: number) => string;
}

const PANEL_HEIGHT = 54;
const PANEL_GAP = 12;

/**
 * One panel per row, stacked over one time axis: a bar per bucket, its height the count (or its
 * square root). Bars carry `data-x` (the bucket's start, ms) and `data-y` (its count); each panel's
 * group carries its scales.
 */
export function histogramSvg(spec: HistogramSpec): string {
  const width = spec.width ?? 760;
  const runs = Math.max(1, spec.runs ?? 1);
  const nameWidth = Math.max(40, ...spec.rows.map((r) => textWidth(r.name)));
  const left = 24 + nameWidth;
  const right = width - 130;
  const { markup, top } = heading(spec.title, spec.subtitle, 16);
  const bottom = top + spec.rows.length * (PANEL_HEIGHT + PANEL_GAP) - PANEL_GAP;
  const height = bottom + 48;
  const x = makeScale("linear", [0, spec.untilMs], [left, right]);
  const sharedMax = Math.max(0, ...spec.rows.flatMap((r) => r.counts));

  const body: string[] = [...markup, ...xAxis(x, top, bottom, " ms")];
  spec.rows.forEach((row, i) => {
    const buckets = row.counts.length;
    const bucketMs = spec.untilMs / Math.max(1, buckets);
    const panelTop = top + i * (PANEL_HEIGHT + PANEL_GAP);
    const panelBottom = panelTop + PANEL_HEIGHT;
    const peak = Math.max(0, ...row.counts);
    const max = spec.sharedScale === true ? sharedMax : peak;
    const y = makeScale(
      spec.sqrt === true ? "sqrt" : "linear",
      [0, max > 0 ? max : 1],
      [panelBottom, panelTop],
    );
    const color = row.color ?? colorAt(i);
    const bars = row.counts.flatMap((count, b) => {
      if (count <= 0) return [];
      const x0 = x.map(b * bucketMs);
      const x1 = x.map((b + 1) * bucketMs);
      const barTop = y.map(count);
      return [
        element(
          "rect",
          {
            class: "bar",
            x: x0,
            y: barTop,
            width: Math.max(0.5, x1 - x0 - 0.6),
            height: panelBottom - barTop,
            "data-x": b * bucketMs,
            "data-y": count,
          },
          tooltip(
            spec.barTooltip?.(
              row.name,
              tickLabel(b * bucketMs),
              tickLabel((b + 1) * bucketMs),
              count,
              runs,
            ) ??
              `${row.name}, ${tickLabel(b * bucketMs)}-${tickLabel((b + 1) * bucketMs)} ms: ${count} writes over ${runs} runs`,
          ),
        ),
      ];
    });
    body.push(
      element(
        "g",
        {
          class: "plot",
          "data-series": row.name,
          fill: color,
          ...scaleAttrs("x", x),
          ...scaleAttrs("y", y),
        },
        ...bars,
      ),
    );
    body.push(
      element("line", { x1: left, x2: right, y1: panelBottom, y2: panelBottom, stroke: AXIS }),
    );
    body.push(
      textElement(row.name, {
        x: left - 8,
        y: panelBottom - PANEL_HEIGHT / 2 + 4,
        "text-anchor": "end",
      }),
    );
    const peakText = tickLabel(Math.round(peak / runs));
    body.push(
      textElement(
        spec.peakLabel?.(peakText, runs > 1) ?? `peak ${peakText}${runs > 1 ? " / run" : ""}`,
        { x: right + 10, y: panelBottom - PANEL_HEIGHT / 2 + 4, fill: MUTED },
      ),
    );
  });
  body.push(
    textElement(spec.xLabel ?? "time since the clients started (ms)", {
      x: (left + right) / 2,
      y: height - 12,
      "text-anchor": "middle",
    }),
  );
  return svgDocument(
    { width, height, title: spec.title, ...(spec.subtitle ? { description: spec.subtitle } : {}) },
    body,
  );
}

export interface BarSpecItem {
  label: string;
  value: number;
  /** Printed after the value, e.g. "0.93× naive". */
  note?: string;
  /** The lowest and highest of the measurements the value summarises, drawn as a thin line. */
  spread?: readonly [number, number];
  /** A fill colour other than the series colour (e.g. grey for a reference). */
  color?: string;
}

export interface BarChartSvgSpec {
  title: string;
  subtitle?: string;
  items: readonly BarSpecItem[];
  /** What the values are, under the axis, e.g. "requests per second". */
  xLabel: string;
  width?: number;
}

const BAR_HEIGHT = 22;
const BAR_GAP = 10;

/** A horizontal bar per item on one linear scale from zero; bars carry `data-label` and `data-value`. */
export function barChartSvg(spec: BarChartSvgSpec): string {
  const width = spec.width ?? 760;
  const labelWidth = Math.max(40, ...spec.items.map((i) => textWidth(i.label)));
  const left = 24 + labelWidth;
  const noteWidth = Math.max(
    60,
    ...spec.items.map((i) => textWidth(`${tickLabel(Math.round(i.value))}  ${i.note ?? ""}`)),
  );
  const right = width - noteWidth - 24;
  const { markup, top } = heading(spec.title, spec.subtitle, 16);
  const bottom = top + spec.items.length * (BAR_HEIGHT + BAR_GAP);
  const height = bottom + 48;
  const max = Math.max(0, ...spec.items.map((i) => Math.max(i.value, i.spread?.[1] ?? 0)));
  const x = makeScale("linear", niceLinearDomain(0, max > 0 ? max : 1), [left, right]);

  const body: string[] = [...markup, ...xAxis(x, top, bottom)];
  const bars = spec.items.map((item, i) => {
    const barTop = top + BAR_GAP / 2 + i * (BAR_HEIGHT + BAR_GAP);
    const mid = barTop + BAR_HEIGHT / 2;
    const parts = [
      element(
        "rect",
        {
          class: "bar",
          x: left,
          y: barTop,
          width: Math.max(0, x.map(item.value) - left),
          height: BAR_HEIGHT,
          fill: item.color ?? colorAt(4),
          "data-label": item.label,
          "data-value": item.value,
        },
        tooltip(
          `${item.label}: ${tickLabel(Math.round(item.value))}${item.note ? ` (${item.note})` : ""}`,
        ),
      ),
      textElement(item.label, { x: left - 8, y: mid + 4, "text-anchor": "end" }),
      textElement(`${tickLabel(Math.round(item.value))}  ${item.note ?? ""}`.trimEnd(), {
        x: x.map(Math.max(item.value, item.spread?.[1] ?? 0)) + 8,
        y: mid + 4,
      }),
    ];
    if (item.spread !== undefined) {
      parts.push(
        element("line", {
          class: "spread",
          x1: x.map(item.spread[0]),
          x2: x.map(item.spread[1]),
          y1: mid,
          y2: mid,
          stroke: AXIS,
          "stroke-width": 1.5,
          "data-low": item.spread[0],
          "data-high": item.spread[1],
        }),
      );
    }
    return element("g", {}, ...parts);
  });
  body.push(element("g", { class: "plot", ...scaleAttrs("x", x) }, ...bars));
  body.push(element("line", { x1: left, x2: left, y1: top, y2: bottom, stroke: AXIS }));
  body.push(
    textElement(spec.xLabel, { x: (left + right) / 2, y: height - 12, "text-anchor": "middle" }),
  );
  return svgDocument(
    { width, height, title: spec.title, ...(spec.subtitle ? { description: spec.subtitle } : {}) },
    body,
  );
}
