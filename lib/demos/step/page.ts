/// <reference lib="dom" />
/**
 * Demo 2's script: opens this tab's session, and draws each step the session sends (one per Step,
 * or all of them with Run to the end): the lanes agent · server · database, what the agent knows
 * beside what really happened, the key row, the count read from the database, the step log.
 * Bundled by esbuild for the page (lib/demos/bundle.ts); it imports only types, text.ts and the
 * variants' names.
 */
import type { CellEvent } from "../../matrix/cell-events.ts";
import { isVariantName, type VariantName } from "../../tracker/variant.ts";
import type { Lang } from "../lang.ts";
import type { DoneMessage, StepMessage } from "./sessions.ts";
import { countText, type KeyColumn, keyColumns, outcomeText, stepText, UI } from "./text.ts";

const root = document.getElementById("stepper") as HTMLElement;
const lang: Lang = root.dataset.lang === "zh" ? "zh" : "en";
// The key row's columns: a lease and a fence only for a variant that has them.
const columns = keyColumns(
  isVariantName(root.dataset.variant ?? "") ? (root.dataset.variant as VariantName) : "fenced",
);
const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;
const stepButton = $<HTMLButtonElement>("step-button");
const runButton = $<HTMLButtonElement>("run-button");
const restartButton = $<HTMLButtonElement>("restart-button");
const message = $("session-message");
const count = $("report-count");
const lanes = $("lanes");
const knows = $("agent-knows");
const happened = $("really-happened");
const keyBody = $("key-rows").querySelector("tbody") as HTMLElement;
const keyNote = $("key-note");
const log = $("step-log");
const processInfo = $("process-info");
const clockInfo = $("clock-info");

let session: string | undefined;
let events: EventSource | undefined;
let sessionPid = 0;
let lastAgent = "";

function el(tag: string, text: string, className?: string): HTMLElement {
  const e = document.createElement(tag);
  e.textContent = text;
  if (className) e.className = className;
  return e;
}

function setState(state: string): void {
  root.dataset.state = state;
  const over = state === "done" || state === "gone" || state === "failed" || state === "full";
  stepButton.disabled = over || state === "starting";
  runButton.disabled = over || state === "starting";
}

function say(text: string): void {
  message.textContent = text;
}

async function start(): Promise<void> {
  setState("starting");
  say(UI.starting[lang]);
  const q = new URLSearchParams({
    variant: root.dataset.variant ?? "",
    fault: root.dataset.fault ?? "",
    policy: root.dataset.policy ?? "",
    lang,
  });
  const res = await fetch(`/step/sessions?${q}`, { method: "POST" });
  const body = (await res.json()) as { id?: string; pid?: number; message?: string };
  if (res.status !== 201 || body.id === undefined) {
    say(body.message ?? `${res.status}`);
    setState("full");
    return;
  }
  session = body.id;
  sessionPid = body.pid ?? 0;
  root.dataset.session = session;
  root.dataset.pid = String(sessionPid);
  processInfo.textContent = `${UI.inProcess[lang]} ${sessionPid}`;
  const source = new EventSource(`/step/sessions/${session}/events`);
  events = source;
  source.addEventListener("step", (e) =>
    onStep(JSON.parse((e as MessageEvent<string>).data) as StepMessage),
  );
  source.addEventListener("done", (e) =>
    onDone(JSON.parse((e as MessageEvent<string>).data) as DoneMessage),
  );
  source.addEventListener("failed", (e) => {
    say(
      UI.failed[lang] +
        (JSON.parse((e as MessageEvent<string>).data) as { message: string }).message,
    );
    setState("failed");
    source.close();
  });
  source.addEventListener("gone", () => {
    source.close();
    if (root.dataset.state !== "done") {
      say(UI.gone[lang]);
      setState("gone");
    }
  });
  source.addEventListener("open", () => {
    if (root.dataset.state === "starting") {
      say(UI.ready[lang]);
      setState("ready");
    }
  });
}

/**
 * Asks the session for more; an unknown or finished session is a clear message, not a crash. The
 * answer may come after the cell's last events (a short cell, a busy machine): the state is set
 * before asking, so that a late answer never overwrites the verdict.
 */
async function ask(what: "step" | "run"): Promise<void> {
  if (session === undefined) return;
  if (what === "run") setState("running");
  const res = await fetch(`/step/sessions/${session}/${what}`, { method: "POST" });
  if (res.status === 404) {
    const body = (await res.json().catch(() => ({}))) as { message?: string };
    if (root.dataset.state === "done") return; // the cell ended first: its verdict stands
    say(body.message ?? UI.gone[lang]);
    setState("gone");
    events?.close();
  }
}

const LANE: Record<CellEvent["actor"], number> = { agent: 0, server: 1, database: 2, lesson: -1 };
const LANE_NAMES = ["agent", "server", "database"] as const;

function onStep(step: StepMessage): void {
  const e = step.event;
  if (lanes.querySelector(`li[data-seq="${e.seq}"]`)) return; // sent again after a reconnect
  const sentence = stepText(e, lang);
  // The lanes: one row per step, the step in its actor's lane (the lesson's own steps span all three).
  const row = document.createElement("li");
  row.dataset.seq = String(e.seq);
  row.dataset.actor = e.actor;
  row.dataset.what = e.what;
  row.dataset.text = e.text;
  row.className = `step-row ${e.mark ?? ""} what-${e.what}`;
  const lane = LANE[e.actor];
  if (lane < 0) row.append(el("div", sentence, "lane note"));
  else
    for (let i = 0; i < 3; i++) {
      const cell = el(
        "div",
        i === lane ? sentence : "",
        `lane lane-${i}${i === lane ? " here" : ""}`,
      );
      // On a narrow screen only the step's own lane shows, full width, named by this label.
      if (i === lane) cell.prepend(el("span", `${UI[LANE_NAMES[i]!][lang]}: `, "lane-label"));
      if (i === lane && e.sql) {
        const sql = el("code", e.sql.join(";\n"), `sql ${e.tx ?? ""}`);
        sql.setAttribute("lang", "en");
        cell.append(sql);
      }
      row.append(cell);
    }
  lanes.append(row);
  // What the agent knows (only what came back to it) beside what really happened.
  if (e.what === "receive") {
    lastAgent = outcomeText(e, lang);
    knows.append(
      el("li", `${e.call !== undefined && e.call > 1 ? UI.secondCall[lang] : ""}${lastAgent}`),
    );
  } else if (
    e.actor === "server" ||
    e.actor === "database" ||
    e.what === "restart" ||
    e.what === "process-start"
  ) {
    happened.append(el("li", sentence));
  }
  // The count and the key rows, as read from the SQLite file after this step.
  count.textContent = countText(step.db.reports, lang, false);
  keyBody.replaceChildren(
    ...step.db.keys.map((k) => {
      const tr = document.createElement("tr");
      const cells: Record<KeyColumn, string> = {
        key: `${k.key}…`,
        state: k.state,
        fence: String(k.fence),
        lease: String(k.leaseUntil),
        answer: k.status === null ? "–" : String(k.status),
      };
      for (const c of columns) tr.append(el("td", cells[c]));
      return tr;
    }),
  );
  keyNote.hidden = step.db.keys.length > 0;
  if (e.pid !== undefined && e.pid !== sessionPid)
    processInfo.textContent = `${UI.trackerPid[lang]} ${e.pid}${e.what === "crash" ? " · SIGKILL" : ""}`;
  if (e.what === "clock") clockInfo.textContent = `${UI.clock[lang]}: ${e.to} ms`;
  // The log: the sentence, and the terminal's own line.
  const item = el("li", `${sentence} `);
  const term = el("code", `${UI.terminal[lang]}: ${e.actor} ${e.text}`, "terminal");
  term.setAttribute("lang", "en");
  item.append(term);
  log.append(item);
  root.dataset.steps = String(e.seq);
  root.dataset.reports = String(step.db.reports);
}

function onDone(done: DoneMessage): void {
  count.textContent = countText(done.reports, lang, true);
  root.dataset.reports = String(done.reports);
  root.dataset.verdict = done.verdict;
  const verdict =
    done.verdict === "ok"
      ? UI.doneOk[lang]
      : done.verdict === "duplicate"
        ? UI.doneDup[lang]
        : UI.doneLost[lang];
  happened.append(el("li", `${countText(done.reports, lang, true)}: ${verdict}`, "verdict"));
  if (lastAgent) knows.append(el("li", `${UI.finalKnows[lang]} ${lastAgent}`, "verdict"));
  log.append(el("li", `${countText(done.reports, lang, true)} · ${verdict}`, "verdict"));
  say(verdict);
  setState("done");
  restartButton.focus();
}

function clear(): void {
  for (const list of [lanes, knows, happened, log, keyBody]) list.replaceChildren();
  count.textContent = countText(0, lang, false);
  clockInfo.textContent = "";
  keyNote.hidden = false;
  lastAgent = "";
  delete root.dataset.verdict;
  root.dataset.steps = "0";
  root.dataset.reports = "0";
}

stepButton.addEventListener("click", () => void ask("step"));
runButton.addEventListener("click", () => void ask("run"));
restartButton.addEventListener("click", () => {
  const old = session;
  events?.close();
  session = undefined;
  if (old) void fetch(`/step/sessions/${old}/close`, { method: "POST" });
  clear();
  void start();
});
// Leaving the page ends the session at once (its stream closing would end it too).
window.addEventListener("pagehide", () => {
  if (session) navigator.sendBeacon(`/step/sessions/${session}/close`);
});

void start();
