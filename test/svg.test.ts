import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { barChartSvg, histogramSvg, lineChartSvg } from "../lib/charts/charts-svg.ts";
import {
  element,
  escapeXml,
  makeScale,
  niceLogDomain,
  scaleFromAttrs,
  svgDocument,
  textElement,
} from "../lib/charts/svg.ts";
import { bucketCounts } from "../lib/herd/charts.ts";
import { simulateMany } from "../lib/herd/simulator.ts";
import { HERD_SVG_FILES, writeHerdSvgs } from "../lib/herd/svg.ts";
import { herdWriteTimes } from "../lib/herd/write-times.ts";
import { allElements, parseXml, type XmlElement } from "./xml.ts";

/** The plotted marks of a picture, each with the scales of the plot it belongs to. */
function marks(root: XmlElement, selector: (e: XmlElement) => boolean) {
  const plots = allElements(root).filter((e) => e.attrs.class === "plot");
  assert.ok(plots.length > 0, "no plot group");
  return plots.flatMap((plot) =>
    allElements(plot)
      .filter(selector)
      .map((mark) => ({ plot, mark })),
  );
}

/** Asserts that a pixel coordinate is where the plot's own scale puts the value (to 0.01 px). */
function assertMapped(
  plot: XmlElement,
  axis: "x" | "y",
  value: number,
  pixel: string | undefined,
): void {
  const scale = scaleFromAttrs(axis, plot.attrs);
  assert.ok(pixel !== undefined, `no ${axis} pixel`);
  assert.ok(
    Math.abs(scale.map(value) - Number(pixel)) <= 0.006,
    `${axis}: ${value} maps to ${scale.map(value)}, drawn at ${pixel}`,
  );
}

/** Nothing that would load from elsewhere or run: the file must open offline and without scripts. */
function assertSelfContained(svg: string): void {
  assert.doesNotMatch(svg, /<script|href=|url\(|@import|<image|<foreignObject/i);
}

describe("the XML checker the SVG tests rely on", () => {
  test("accepts a well-formed document and resolves references", () => {
    const root = parseXml(
      `<?xml version="1.0" encoding="UTF-8"?>\n<!-- c --><a x='1' y="&lt;&amp;&#65;"><b/>t&gt;<![CDATA[<raw>]]></a>\n`,
    );
    assert.equal(root.name, "a");
    assert.deepEqual(root.attrs, { x: "1", y: "<&A" });
    assert.equal(root.children[0]!.name, "b");
    assert.equal(root.text, "t><raw>");
  });

  for (const [what, source] of [
    ["a tag closed out of order", "<a><b></a></b>"],
    ["an unclosed element", "<a><b/>"],
    ["a bare &", "<a>fish & chips</a>"],
    ["an unknown entity", "<a>&nbsp;</a>"],
    ["a < in an attribute", '<a x="<"/>'],
    ["an attribute twice", '<a x="1" x="2"/>'],
    ["an unquoted attribute", "<a x=1/>"],
    ["attributes without space between", '<a x="1"y="2"/>'],
    ["two roots", "<a/><b/>"],
    ["text after the root", "<a/>tail"],
    ["a control character", "<a>\u0001</a>"],
    ["-- in a comment", "<a><!-- a -- b --></a>"],
  ] as const) {
    test(`rejects ${what}`, () => assert.throws(() => parseXml(source)));
  }
});

describe("the SVG writer", () => {
  test("text and attributes are escaped, so any string survives the round trip", () => {
    const nasty = `<script>&"quotes" 'and' ]]> </svg>`;
    const svg = svgDocument({ width: 100, height: 50, title: nasty }, [
      textElement(nasty, { x: 1, y: 2, "data-note": nasty }),
      element("rect", { x: 0.123456, y: -0.001, width: 5, height: undefined, "data-x": 0.123456 }),
    ]);
    const root = parseXml(svg);
    assert.equal(root.name, "svg");
    assert.equal(root.attrs.xmlns, "http://www.w3.org/2000/svg");
    const text = allElements(root).find((e) => e.name === "text")!;
    assert.equal(text.text, nasty);
    assert.equal(text.attrs["data-note"], nasty);
    const rect = allElements(root).find((e) => e.name === "rect" && e.attrs.x !== undefined)!;
    assert.equal(rect.attrs.x, "0.12", "pixels are rounded");
    assert.equal(rect.attrs.y, "0", "no -0");
    assert.equal(rect.attrs["data-x"], "0.123456", "data keeps every digit");
    assert.equal("height" in rect.attrs, false);
    assert.equal(escapeXml(`a<b>&"'`), "a&lt;b&gt;&amp;&quot;&apos;");
  });

  test("scales map their domain onto their range, linear, log and square root", () => {
    const lin = makeScale("linear", [0, 10], [100, 0]);
    assert.equal(lin.map(0), 100);
    assert.equal(lin.map(5), 50);
    assert.deepEqual(lin.ticks(), [0, 2, 4, 6, 8, 10]);
    const log = makeScale("log", [10, 10_000], [0, 300]);
    assert.equal(log.map(100), 100);
    assert.equal(log.map(1000), 200);
    assert.deepEqual(
      log.ticks().filter((t) => t >= 1000),
      [1000, 2000, 5000, 10_000],
    );
    const sqrt = makeScale("sqrt", [0, 100], [0, 10]);
    assert.equal(sqrt.map(25), 5);
    assert.deepEqual(niceLogDomain(37, 8002), [20, 10_000]);
    assert.deepEqual(niceLogDomain(100, 100), [100, 1000]);
    assert.throws(() => makeScale("log", [0, 10], [0, 1]), /positive/);
  });
});

describe("charts as SVG", () => {
  test("a line chart plots every value where its scale says, and carries the values", () => {
    const xs = [10, 20, 40];
    const series = [
      { name: "a", values: [12.5, 400, 9000] },
      { name: "b <&>", values: [30, 31, 33.25] },
    ];
    for (const yScale of ["linear", "log"] as const) {
      const svg = lineChartSvg({
        title: "t",
        xLabel: "clients",
        yLabel: "calls",
        xs,
        series,
        yScale,
      });
      assertSelfContained(svg);
      const root = parseXml(svg);
      const points = marks(root, (e) => e.name === "circle" && e.attrs.class === "point");
      assert.equal(points.length, 6);
      assert.equal(points[0]!.plot.attrs["data-y-scale"], yScale);
      for (const s of series) {
        const group = allElements(root).find((e) => e.attrs["data-series"] === s.name)!;
        const drawn = group.children
          .filter((e) => e.name === "circle")
          .map((c) => [Number(c.attrs["data-x"]), Number(c.attrs["data-y"])]);
        assert.deepEqual(
          drawn,
          xs.map((x, i) => [x, s.values[i]]),
        );
      }
      for (const { plot, mark } of points) {
        assertMapped(plot, "x", Number(mark.attrs["data-x"]), mark.attrs.cx);
        assertMapped(plot, "y", Number(mark.attrs["data-y"]), mark.attrs.cy);
      }
    }
  });

  test("a histogram's bars carry their bucket and count, heights through the panel's scale", () => {
    const rows = [
      { name: "one", counts: [4, 0, 1, 9] },
      { name: "two", counts: [0, 2, 2, 0] },
    ];
    const svg = histogramSvg({ title: "h", rows, untilMs: 400, runs: 2, sqrt: true });
    const root = parseXml(svg);
    const bars = marks(root, (e) => e.name === "rect" && e.attrs.class === "bar");
    assert.equal(bars.length, 5, "a bar per non-empty bucket");
    for (const { plot, mark } of bars) {
      const row = rows.find((r) => r.name === plot.attrs["data-series"])!;
      const bucket = Number(mark.attrs["data-x"]) / 100;
      assert.equal(Number(mark.attrs["data-y"]), row.counts[bucket]);
      assert.equal(plot.attrs["data-y-scale"], "sqrt");
      assertMapped(plot, "x", Number(mark.attrs["data-x"]), mark.attrs.x);
      assertMapped(plot, "y", Number(mark.attrs["data-y"]), mark.attrs.y);
    }
    // Each row to its own peak: the tallest bar of each row reaches the top of its panel.
    assert.match(svg, /peak 5 \/ run/);
  });

  test("a bar chart's bars end where the scale puts their values", () => {
    const items = [
      { label: "ceiling", value: 12_000, spread: [11_000, 12_500] as const },
      { label: "naive", value: 5_000, note: "0.42× ceiling" },
    ];
    const svg = barChartSvg({ title: "b", items, xLabel: "requests per second" });
    const root = parseXml(svg);
    const bars = marks(root, (e) => e.name === "rect" && e.attrs.class === "bar");
    assert.deepEqual(
      bars.map((b) => [b.mark.attrs["data-label"], Number(b.mark.attrs["data-value"])]),
      [
        ["ceiling", 12_000],
        ["naive", 5_000],
      ],
    );
    for (const { plot, mark } of bars) {
      assertMapped(
        plot,
        "x",
        Number(mark.attrs["data-value"]),
        String(Number(mark.attrs.x) + Number(mark.attrs.width)),
      );
      assertMapped(plot, "x", 0, mark.attrs.x);
    }
    assert.match(svg, /0\.42× ceiling/);
  });
});

describe("the herd's SVG files", () => {
  const rows = simulateMany({
    strategies: ["no-backoff", "exponential", "full"],
    clients: [5, 10, 20],
    runs: 3,
    seed: 4,
  });
  const writeTimes = herdWriteTimes({
    strategies: ["no-backoff", "exponential", "full"],
    clients: 20,
    runs: 2,
    seed: 4,
    rows,
  });

  test("writeHerdSvgs writes three well-formed files that plot the sweep's own numbers", () => {
    const dir = mkdtempSync(join(tmpdir(), "herd-svg-"));
    try {
      const written = writeHerdSvgs(join(dir, "new"), rows, writeTimes);
      assert.deepEqual(
        written.map((p) => p.slice(join(dir, "new").length + 1)),
        Object.values(HERD_SVG_FILES),
      );
      for (const [file, metric] of [
        [HERD_SVG_FILES.calls, "calls"],
        [HERD_SVG_FILES.completion, "completionMs"],
      ] as const) {
        const svg = readFileSync(join(dir, "new", file), "utf8");
        assertSelfContained(svg);
        const root = parseXml(svg);
        const points = marks(root, (e) => e.attrs.class === "point");
        assert.equal(points.length, rows.length);
        for (const r of rows) {
          const group = allElements(root).find((e) => e.attrs["data-series"] === r.strategy)!;
          const point = group.children.find(
            (c) => c.name === "circle" && Number(c.attrs["data-x"]) === r.clients,
          );
          assert.ok(point, `${file}: no point for ${r.strategy} at ${r.clients}`);
          assert.equal(Number(point.attrs["data-y"]), r[metric]);
        }
        for (const { plot, mark } of points)
          assertMapped(plot, "y", Number(mark.attrs["data-y"]), mark.attrs.cy);
        assert.equal(points[0]!.plot.attrs["data-y-scale"], "log");
      }
      const histogram = parseXml(readFileSync(join(dir, "new", HERD_SVG_FILES.writeTimes), "utf8"));
      // A strategy has one colour in every file, and no two strategies share one.
      const calls = parseXml(readFileSync(join(dir, "new", HERD_SVG_FILES.calls), "utf8"));
      const colorIn = (root: XmlElement, name: string): string | undefined =>
        allElements(root).find((e) => e.attrs["data-series"] === name)?.attrs.fill;
      const colors = writeTimes.series.map((s) => colorIn(calls, s.name));
      assert.deepEqual(
        writeTimes.series.map((s) => colorIn(histogram, s.name)),
        colors,
      );
      assert.equal(new Set(colors).size, colors.length);
      for (const s of writeTimes.series) {
        const counts = bucketCounts(s.timesMs, writeTimes.untilMs, writeTimes.buckets);
        const plot = allElements(histogram).find(
          (e) => e.attrs.class === "plot" && e.attrs["data-series"] === s.name,
        )!;
        const drawn = plot.children
          .filter((e) => e.name === "rect")
          .map((e) => Number(e.attrs["data-y"]));
        assert.deepEqual(
          drawn,
          counts.filter((c) => c > 0),
        );
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  const root = fileURLToPath(new URL("..", import.meta.url));
  const cli = fileURLToPath(new URL("../lib/herd/cli.ts", import.meta.url));
  const herd = (...args: string[]) =>
    spawnSync(process.execPath, ["--import", "tsx", cli, ...args], { cwd: root, encoding: "utf8" });

  test("npm run herd -- --svg <dir> writes the files and says where", () => {
    const dir = mkdtempSync(join(tmpdir(), "herd-svg-cli-"));
    try {
      const r = herd(
        "--clients",
        "5,10",
        "--runs",
        "2",
        "--strategies",
        "full,exponential",
        "--svg",
        dir,
      );
      assert.equal(r.status, 0, r.stderr);
      for (const file of Object.values(HERD_SVG_FILES)) {
        assert.ok(existsSync(join(dir, file)), file);
        assert.match(r.stdout, new RegExp(file.replace(".", "\\.")));
        parseXml(readFileSync(join(dir, file), "utf8"));
      }
      // With --csv the CSV stays alone on stdout.
      const csv = herd(
        "--csv",
        "--clients",
        "5",
        "--runs",
        "2",
        "--strategies",
        "full",
        "--svg",
        dir,
      );
      assert.equal(csv.status, 0, csv.stderr);
      assert.equal(csv.stdout.trimEnd().split("\n").length, 2);
      assert.match(csv.stderr, /herd-calls\.svg/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("--svg without a directory: one line, exit code 2", () => {
    const r = herd("--svg");
    assert.equal(r.status, 2);
    assert.equal(r.stderr.trimEnd().split("\n").length, 1);
  });
});
