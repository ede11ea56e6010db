/// <reference lib="dom" />
/**
 * Demo 1's page script: reads the form (filled by the server from the URL), runs the sweep in Web
 * Workers (sweep.ts), and shows the rows, the charts (the SVG documents of `npm run herd -- --svg`),
 * the CSV of `npm run herd -- --csv` and the blog's conclusions checked against the run. Changing a
 * control cancels the run in flight and starts again; every control's value goes into the URL.
 *
 * What a test (or a screen reader) can rely on: `#status` (aria-live) says what is happening and
 * ends with "Done…"; `<body data-state>` is "running", "done", "invalid" or "failed"; `data-run` is
 * the current run's number and `data-done-runs` lists the runs whose results were put on screen.
 */
import { checkConclusions } from "../../herd/conclusions.ts";
import { herdCsv } from "../../herd/csv.ts";
import { HERD_STRATEGIES, type PointResult } from "../../herd/simulator.ts";
import { ENGLISH_LABELS, herdSvgs, strategyColor, strategyDash } from "../../herd/svg-docs.ts";
import { herdWriteTimes } from "../../herd/write-times.ts";
import { type Lang, langOfTag } from "../lang.ts";
import {
  cliArgs,
  type HerdParams,
  type ParamError,
  parseParams,
  sweepSpec,
  toQuery,
} from "./params.ts";
import { runSweep, type SweepRun, WorkerPool } from "./sweep.ts";
import {
  CHART_LABELS_ZH,
  CONCLUSIONS,
  FORMULAS,
  formulaCaption,
  type Numbers,
  STATUS,
  STRATEGY_NAMES,
  T,
  VERDICT,
} from "./text.ts";

const pool = new WorkerPool("/assets/herd-worker.js");
const WORKERS = Math.min(navigator.hardwareConcurrency || 2, 8);
const lang: Lang = langOfTag(document.documentElement.lang);
const locale = lang === "zh" ? "zh-CN" : "en-US";

const $ = <E extends Element = HTMLElement>(selector: string): E => {
  const found = document.querySelector<E>(selector);
  if (found === null) throw new Error(`missing ${selector}`);
  return found;
};

const form = $<HTMLFormElement>("#herd-form");
const status = $("#status");
const progress = $<HTMLProgressElement>("#progress");
const progressText = $("#progress-text");
const errorList = $("#errors");
const output = $("#output");

const numbers: Numbers = {
  n: (value, d = 0) => value.toLocaleString(locale, { maximumFractionDigits: d }),
  pct: (a, b) =>
    `${(b === 0 ? 0 : (100 * a) / b).toLocaleString(locale, { maximumFractionDigits: 0 })}%`,
  times: (a, b) => `×${(b === 0 ? 0 : a / b).toLocaleString(locale, { maximumFractionDigits: 1 })}`,
  ratio: (a, b) => (b === 0 ? 0 : a / b).toLocaleString(locale, { maximumFractionDigits: 1 }),
};

let current: SweepRun | undefined;
let runNumber = 0;
const doneRuns: number[] = [];
const objectUrls: string[] = [];

/** The form as a query: the same names as the URL's. */
function formQuery(): URLSearchParams {
  const query = new URLSearchParams();
  const data = new FormData(form);
  for (const name of ["clients", "runs", "seed", "base", "cap", "mean", "sd"])
    query.set(name, String(data.get(name) ?? ""));
  query.set("strategies", data.getAll("strategies").map(String).join(","));
  return query;
}

function showErrors(errors: readonly ParamError[]): void {
  for (const input of form.querySelectorAll("[aria-invalid]"))
    input.removeAttribute("aria-invalid");
  for (const small of form.querySelectorAll(".error")) small.textContent = "";
  errorList.replaceChildren(
    ...errors.map((error) => {
      const li = document.createElement("li");
      li.textContent = error.message[lang];
      const target =
        error.field === "strategies"
          ? document.querySelector("#strategies")
          : document.querySelector(`#${error.field}`);
      target?.setAttribute("aria-invalid", "true");
      const small = document.querySelector(`#${error.field}-error`);
      if (small !== null) small.textContent = error.message[lang];
      return li;
    }),
  );
}

function setState(state: "running" | "done" | "invalid" | "failed"): void {
  document.body.dataset.state = state;
}

let pending = false;
/** Starts a run once, after the events of this turn (a change and a submit from one Enter start one run). */
function requestRun(): void {
  if (pending) return;
  pending = true;
  setTimeout(() => {
    pending = false;
    start();
  }, 0);
}

function start(): void {
  const wasRunning = current !== undefined;
  current?.cancel();
  current = undefined;
  const parsed = parseParams(formQuery());
  showErrors(parsed.ok ? [] : parsed.errors);
  if (!parsed.ok) {
    setState("invalid");
    status.textContent = `${STATUS.invalid(lang)} ${parsed.errors.map((e) => e.message[lang]).join(" ")}`;
    return;
  }
  const params = parsed.params;
  const url = new URL(location.href);
  const langParam = url.searchParams.get("lang");
  history.replaceState(
    null,
    "",
    `/herd?${toQuery(params)}${langParam === null ? "" : `&lang=${encodeURIComponent(langParam)}`}`,
  );
  // The captions' example waits follow the base and cap of this run, as the server's followed the URL's.
  for (const s of HERD_STRATEGIES) {
    const caption = document.querySelector(`#caption-${s}`);
    if (caption !== null) caption.textContent = formulaCaption(s, params)[lang];
  }

  const run = ++runNumber;
  document.body.dataset.run = String(run);
  setState("running");
  const total = params.strategies.length * params.clients.length;
  progress.max = total;
  progress.value = 0;
  progressText.textContent = STATUS.points(lang, 0, total);
  const computing = STATUS.computing(
    lang,
    params.strategies.length,
    params.clients.length,
    params.runs,
  );
  status.textContent = wasRunning ? `${STATUS.restarted(lang)} ${computing}` : computing;

  const sweep = runSweep(sweepSpec(params), {
    pool,
    workers: WORKERS,
    onPoint(done, all) {
      if (run !== runNumber) return;
      progress.value = done;
      progressText.textContent = STATUS.points(lang, done, all);
    },
  });
  current = sweep;
  sweep.result.then(
    (result) => {
      // A cancelled run resolves with nothing; a newer run owns the screen.
      if (result === undefined || run !== runNumber) return;
      current = undefined;
      show(params, result.rows);
      const calls = result.rows.reduce((sum, r) => sum + Math.round(r.calls * r.runs), 0);
      const checks = checkConclusions(result.rows).conclusions.filter((c) => c.holds !== undefined);
      status.textContent = STATUS.done(
        lang,
        (result.elapsedMs / 1000).toLocaleString(locale, {
          minimumFractionDigits: 2,
          maximumFractionDigits: 2,
        }),
        result.rows.length,
        numbers.n(calls),
        result.workers,
        checks.filter((c) => c.holds === true).length,
        checks.length,
      );
      document.body.dataset.elapsedMs = String(result.elapsedMs);
      document.body.dataset.busyMs = String(result.busyMs);
      document.body.dataset.workers = String(result.workers);
      doneRuns.push(run);
      document.body.dataset.doneRuns = doneRuns.join(" ");
      setState("done");
    },
    (error: unknown) => {
      if (run !== runNumber) return;
      current = undefined;
      setState("failed");
      status.textContent = STATUS.failed(
        lang,
        error instanceof Error ? error.message : String(error),
      );
    },
  );
}

function cell(
  tag: "td" | "th",
  content: string | Node,
  attrs: Record<string, string> = {},
): HTMLElement {
  const el = document.createElement(tag);
  if (typeof content === "string") el.textContent = content;
  else el.append(content);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  return el;
}

function row(...cells: HTMLElement[]): HTMLTableRowElement {
  const tr = document.createElement("tr");
  tr.append(...cells);
  return tr;
}

/** A strategy's name with its line's colour and dash, so the table is also the charts' key. */
function strategyLabel(strategy: PointResult["strategy"]): HTMLElement {
  const span = document.createElement("span");
  const sample = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  sample.setAttribute("width", "28");
  sample.setAttribute("height", "10");
  sample.setAttribute("aria-hidden", "true");
  const line = document.createElementNS("http://www.w3.org/2000/svg", "line");
  for (const [k, v] of Object.entries({
    x1: "0",
    x2: "28",
    y1: "5",
    y2: "5",
    stroke: strategyColor(strategy),
    "stroke-width": "3",
  }))
    line.setAttribute(k, v);
  const dash = strategyDash(strategy);
  if (dash !== undefined) line.setAttribute("stroke-dasharray", dash);
  sample.append(line);
  const code = document.createElement("code");
  code.textContent = strategy;
  code.translate = false;
  span.append(sample, ` ${STRATEGY_NAMES[strategy][lang]} `, code);
  return span;
}

/**
 * A command, wrapped only where a shell reads a break as nothing: between its words, or after a
 * comma of a list (`--clients=10,20,…`). Each piece is kept whole (white-space: nowrap in
 * demos.css); a <wbr> after each comma lets a long list go on on the next line. The text is the
 * command exactly, for copying.
 */
function showCommand(target: HTMLElement, command: string): void {
  const nodes: Node[] = [];
  command.split(" ").forEach((word, i) => {
    if (i > 0) nodes.push(document.createTextNode(" "));
    const pieces = word.split(/(?<=,)/);
    pieces.forEach((piece, k) => {
      const span = document.createElement("span");
      span.className = "piece";
      span.textContent = piece;
      nodes.push(span);
      if (k < pieces.length - 1) nodes.push(document.createElement("wbr"));
    });
  });
  target.replaceChildren(...nodes);
}

function download(anchor: HTMLAnchorElement, text: string, type: string): void {
  const href = URL.createObjectURL(new Blob([text], { type }));
  objectUrls.push(href);
  anchor.href = href;
}

function show(params: HerdParams, rows: PointResult[]): void {
  while (objectUrls.length > 0) URL.revokeObjectURL(objectUrls.pop()!);
  const n = Math.max(...params.clients);

  // The table at the largest N, with each strategy's formula beside its line's key.
  $("#at-n-title").textContent = `${T.atN[lang]} (N = ${n})`;
  const atN = $<HTMLTableElement>("#at-n");
  const head = document.createElement("thead");
  head.append(
    row(
      cell("th", T.strategy[lang], { scope: "col" }),
      cell("th", T.formula[lang], { scope: "col" }),
      cell("th", T.callsHead[lang], { scope: "col" }),
      cell("th", T.completionHead[lang], { scope: "col" }),
    ),
  );
  const body = document.createElement("tbody");
  for (const r of rows.filter((x) => x.clients === n)) {
    const formula = document.createElement("td");
    formula.innerHTML = FORMULAS[r.strategy];
    formula.className = "formula";
    formula.dataset.label = T.formula[lang];
    // On a phone each row becomes a card, each figure under its heading (data-label, demos.css).
    body.append(
      row(
        cell("th", strategyLabel(r.strategy), { scope: "row" }),
        formula,
        cell("td", numbers.n(r.calls, 1), { class: "num", "data-label": T.callsHead[lang] }),
        cell("td", numbers.n(r.completionMs), {
          class: "num",
          "data-label": T.completionHead[lang],
        }),
      ),
    );
  }
  atN.replaceChildren(head, body);

  // Every point: the CSV's rows.
  const all = $<HTMLTableElement>("#all-points");
  const allHead = document.createElement("thead");
  allHead.append(
    row(
      cell("th", T.strategy[lang], { scope: "col" }),
      cell("th", T.clientsHead[lang], { scope: "col" }),
      cell("th", T.callsHead[lang], { scope: "col" }),
      cell("th", T.completionHead[lang], { scope: "col" }),
    ),
  );
  const allBody = document.createElement("tbody");
  for (const r of rows)
    allBody.append(
      row(
        cell("td", r.strategy),
        cell("td", String(r.clients), { class: "num" }),
        cell("td", numbers.n(r.calls, 1), { class: "num" }),
        cell("td", numbers.n(r.completionMs, 1), { class: "num" }),
      ),
    );
  all.replaceChildren(allHead, allBody);

  download($<HTMLAnchorElement>("#csv"), herdCsv(rows), "text/csv;charset=utf-8");
  showCommand($("#cli-command"), `npm run herd -- --csv ${cliArgs(params).join(" ")}`);

  // The charts: the same documents `npm run herd -- --svg` writes, in this page's language.
  const spec = sweepSpec(params);
  const writeTimesSpec = {
    strategies: params.strategies,
    clients: n,
    runs: 1,
    seed: params.seed,
    rows,
  };
  const writeTimes = herdWriteTimes({
    ...writeTimesSpec,
    ...(spec.params === undefined ? {} : { params: spec.params }),
    ...(spec.latency === undefined ? {} : { latency: spec.latency }),
  });
  const [calls, completion, writes] = herdSvgs(
    rows,
    writeTimes,
    lang === "zh" ? CHART_LABELS_ZH : ENGLISH_LABELS,
  );
  for (const [id, file] of [
    ["#fig-calls", calls],
    ["#fig-completion", completion],
    ["#fig-writes", writes],
  ] as const) {
    const figure = $(id);
    const chart = figure.querySelector(".chart")!;
    chart.innerHTML = file!.svg.replace(/^<\?xml[^>]*>\s*/, "");
    chart.querySelector("svg")?.setAttribute("role", "img");
    download(figure.querySelector<HTMLAnchorElement>("a[download]")!, file!.svg, "image/svg+xml");
  }

  // The blog's conclusions, checked against this run.
  const checked = checkConclusions(rows);
  const noisy = $("#noisy");
  noisy.hidden = !checked.noisy;
  noisy.textContent = checked.noisy ? VERDICT.noisy[lang] : "";
  $("#conclusions").replaceChildren(
    ...checked.conclusions.map((c) => {
      const li = document.createElement("li");
      const verdict = c.holds === undefined ? VERDICT.unknown : c.holds ? VERDICT.yes : VERDICT.no;
      li.className = c.holds === undefined ? "unknown" : c.holds ? "yes" : "no";
      li.dataset.conclusion = c.id;
      const mark = document.createElement("span");
      mark.className = "verdict";
      mark.textContent = verdict[lang];
      const claim = document.createElement("strong");
      claim.textContent = CONCLUSIONS[c.id].claim[lang];
      const detail = document.createElement("p");
      detail.textContent =
        c.missing.length > 0
          ? VERDICT.missing(
              lang,
              c.missing.map((s) => STRATEGY_NAMES[s][lang]).join(lang === "zh" ? "、" : ", "),
            )
          : CONCLUSIONS[c.id].detail(lang, c.values, numbers);
      li.append(mark, " ", claim, detail);
      return li;
    }),
  );
  output.hidden = false;
}

form.addEventListener("change", requestRun);
form.addEventListener("submit", (event) => {
  event.preventDefault();
  requestRun();
});
requestRun();
