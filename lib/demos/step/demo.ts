/**
 * Demo 2: step through one cell of lesson 08's fault matrix, any fault × service × client, on the
 * real tracker (`/step?variant=keyed&fault=pause-past-lease&policy=same-key&lang=zh`).
 *
 *   GET  /step                          the page (the choices come from the URL)
 *   POST /step/sessions?variant&fault&policy   a new session for this tab → 201 {id, pid}; 503 when 8 run
 *   GET  /step/sessions/<id>/events     the session's steps, as Server-Sent Events
 *   POST /step/sessions/<id>/step       one more step      → 202; 404 for an unknown or finished session
 *   POST /step/sessions/<id>/run        every step to the end
 *   POST /step/sessions/<id>/close      stop it now (the page sends this as it goes away)
 *
 * Why Server-Sent Events and not a WebSocket: the steps flow one way, server to page, and the page's
 * few commands are plain POSTs. SSE is an ordinary HTTP response that node:http writes line by line,
 * with no upgrade handshake or frame format to implement and no library to add; the browser's
 * EventSource parses it. And the stream's end is the signal a tab went away: when its connection
 * closes, the session stops.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { POLICY_NAMES, type PolicyName } from "../../client/client.ts";
import {
  isStepFault,
  matrixVariants,
  policyFor,
  STEP_FAULTS,
  type StepFault,
} from "../../matrix/matrix.ts";
import { isVariantName, VARIANT_NAMES, type VariantName } from "../../tracker/variant.ts";
import type { Demo } from "../demo.ts";
import { escapeHtml, pageHtml } from "../html.ts";
import type { Lang } from "../lang.ts";
import { type CellChoice, type SessionMessage, StepSessions } from "./sessions.ts";
import {
  countText,
  FAULT_HELP,
  KEY_COLUMNS,
  keyColumns,
  POLICY_HELP,
  UI,
  VARIANT_HELP,
} from "./text.ts";

export interface StepDemoOptions {
  /** The sessions to use (tests pass their own to look inside); default: a new StepSessions. */
  sessions?: StepSessions;
}

/** The default cell, as lesson 08's `--step` alone: naive × lose-response, with a blind retry. */
const DEFAULT_CELL: CellChoice = {
  variant: "naive",
  fault: "lose-response",
  policy: "blind-retry",
};

/** The cell a URL asks for; a value that is not one of the names falls back to the default. */
export function cellFromUrl(url: URL): CellChoice {
  const v = url.searchParams.get("variant");
  const f = url.searchParams.get("fault");
  const p = url.searchParams.get("policy");
  const variant: VariantName =
    v !== null && isVariantName(v) && matrixVariants().includes(v) ? v : DEFAULT_CELL.variant;
  const fault: StepFault = f !== null && isStepFault(f) ? f : DEFAULT_CELL.fault;
  const policy: PolicyName =
    p !== null && (POLICY_NAMES as readonly string[]).includes(p)
      ? (p as PolicyName)
      : v !== null
        ? policyFor(variant)
        : DEFAULT_CELL.policy;
  return { variant, fault, policy };
}

export function createStepDemo(options: StepDemoOptions = {}): Demo {
  const demo: Demo = {
    path: "/step",
    title: UI.title,
    summary: UI.summary,
    bundles: { "step.js": "step/page.ts" },
    start() {
      const sessions = options.sessions ?? new StepSessions();
      const withSession =
        (handle: (res: ServerResponse, id: string, lang: Lang) => void) =>
        (
          _req: IncomingMessage,
          res: ServerResponse,
          ctx: { params: readonly string[]; lang: Lang },
        ) =>
          handle(res, ctx.params[0]!, ctx.lang);
      const notFound = (res: ServerResponse, lang: Lang): void =>
        json(res, 404, { message: UI.gone[lang] });
      return {
        routes: [
          {
            method: "GET",
            path: "/step",
            handle(_req, res, ctx) {
              const html = pageHtml({
                lang: ctx.lang,
                url: ctx.url,
                title: UI.title[ctx.lang],
                body: pageBody(cellFromUrl(ctx.url), ctx.lang),
                scripts: ["/assets/step.js"],
                styles: ["/static/step.css"],
              });
              res.writeHead(200, {
                "Content-Type": "text/html; charset=utf-8",
                "Cache-Control": "no-cache",
              });
              res.end(html);
            },
          },
          {
            method: "POST",
            path: "/step/sessions",
            handle(_req, res, ctx) {
              const session = sessions.create(cellFromUrl(ctx.url));
              if (session === undefined) return json(res, 503, { message: UI.full[ctx.lang] });
              json(res, 201, { id: session.id, pid: session.pid, cell: session.cell });
            },
          },
          {
            method: "GET",
            path: /^\/step\/sessions\/([\w-]{10,64})\/events$/,
            handle: withSession((res, id, lang) => {
              const session = sessions.get(id);
              if (session === undefined) return notFound(res, lang);
              res.writeHead(200, {
                "Content-Type": "text/event-stream; charset=utf-8",
                "Cache-Control": "no-store",
                Connection: "keep-alive",
              });
              res.write(": the steps of this session\n\n"); // sends the headers: the page's EventSource opens
              const send = (m: SessionMessage): void => {
                const id = m.type === "step" ? `id: ${m.step.event.seq}\n` : "";
                res.write(
                  `${id}event: ${m.type}\ndata: ${JSON.stringify(m.type === "step" ? m.step : m.type === "done" ? m.done : m.type === "failed" ? { message: m.message } : {})}\n\n`,
                );
                if (m.type === "gone") res.end();
              };
              // A page that reconnects gets what it was sent before, then the rest as it comes.
              for (const step of session.shown) send({ type: "step", step });
              if (session.done) send({ type: "done", done: session.done });
              if (session.failed) send({ type: "failed", message: session.failed });
              const stop = session.listen(send);
              session.touch();
              // The stream is the tab: when it closes (the tab closed or went elsewhere), the session ends.
              res.on("close", () => {
                stop();
                void session.stop();
              });
            }),
          },
          {
            method: "POST",
            path: /^\/step\/sessions\/([\w-]{10,64})\/step$/,
            handle: withSession((res, id, lang) => {
              const session = sessions.get(id);
              if (session === undefined || session.done || session.failed)
                return notFound(res, lang);
              session.step();
              json(res, 202, { asked: session.shown.length + 1 });
            }),
          },
          {
            method: "POST",
            path: /^\/step\/sessions\/([\w-]{10,64})\/run$/,
            handle: withSession((res, id, lang) => {
              const session = sessions.get(id);
              if (session === undefined || session.done || session.failed)
                return notFound(res, lang);
              session.run();
              json(res, 202, {});
            }),
          },
          {
            method: "POST",
            path: /^\/step\/sessions\/([\w-]{10,64})\/close$/,
            handle: withSession((res, id, lang) => {
              const session = sessions.get(id);
              if (session === undefined) return notFound(res, lang);
              void session.stop();
              json(res, 202, {});
            }),
          },
        ],
        close: () => sessions.stopAll(),
      };
    },
  };
  return demo;
}

export const stepDemo: Demo = createStepDemo();

function json(res: ServerResponse, status: number, body: unknown): void {
  const data = Buffer.from(JSON.stringify(body));
  res.writeHead(status, {
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": data.length,
    "Cache-Control": "no-store",
  });
  res.end(data);
}

function options<T extends string>(
  names: readonly T[],
  chosen: T,
  help: Record<T, { en: string; zh: string }>,
  lang: Lang,
): string {
  return names
    .map(
      (n) =>
        `<option value="${n}"${n === chosen ? " selected" : ""}>${n} · ${escapeHtml(help[n][lang])}</option>`,
    )
    .join("");
}

/** The page's markup; the script (page.ts) fills the lanes, the key row, the log and the count. */
function pageBody(cell: CellChoice, lang: Lang): string {
  const t = (k: keyof typeof UI): string => escapeHtml(UI[k][lang]);
  const labels = UI.keyCols[lang].split("|");
  const cols = keyColumns(cell.variant)
    .map((c) => `<th scope="col">${escapeHtml(labels[KEY_COLUMNS.indexOf(c)] ?? c)}</th>`)
    .join("");
  return `<h1>${t("title")}</h1>
<p>${t("lead")}</p>
<form class="step-choice" method="get" action="/step">
<label>${t("variant")} <select name="variant">${options(VARIANT_NAMES, cell.variant, VARIANT_HELP, lang)}</select></label>
<label>${t("fault")} <select name="fault">${options(STEP_FAULTS, cell.fault, FAULT_HELP, lang)}</select></label>
<label>${t("policy")} <select name="policy">${options(POLICY_NAMES, cell.policy, POLICY_HELP, lang)}</select></label>
<input type="hidden" name="lang" value="${lang}">
<button type="submit">${t("load")}</button>
</form>
<div id="stepper" data-lang="${lang}" data-variant="${cell.variant}" data-fault="${cell.fault}" data-policy="${cell.policy}" data-state="starting" data-steps="0">
<div class="step-controls">
<button type="button" id="step-button">${t("step")}</button>
<button type="button" id="run-button">${t("run")}</button>
<button type="button" id="restart-button">${t("restart")}</button>
</div>
<p id="session-message" role="status">${t("starting")}</p>
<div class="step-status">
<p>${t("reports")}: <strong id="report-count">${escapeHtml(countText(0, lang, false))}</strong> <span class="muted">(${t("readFrom")})</span></p>
<p id="process-info" class="muted"></p>
<p id="clock-info" class="muted"></p>
</div>
<section aria-labelledby="seq-h">
<h2 id="seq-h">${t("sequence")}</h2>
<div class="lanes-head" aria-hidden="true"><span>${t("agent")}</span><span>${t("server")}</span><span>${t("database")}</span></div>
<ol id="lanes" class="lanes"></ol>
</section>
<div class="step-columns">
<section aria-labelledby="knows-h"><h2 id="knows-h">${t("knows")}</h2><ul id="agent-knows"></ul></section>
<section aria-labelledby="happened-h"><h2 id="happened-h">${t("happened")}</h2><ul id="really-happened"></ul></section>
</div>
<section aria-labelledby="key-h">
<h2 id="key-h">${t("keyRow")}</h2>
<table id="key-rows"><thead><tr>${cols}</tr></thead><tbody></tbody></table>
<p id="key-note" class="muted">${cell.variant === "naive" ? t("naiveNoKeys") : t("noKeys")}</p>
</section>
<section aria-labelledby="log-h">
<h2 id="log-h">${t("log")}</h2>
<ol id="step-log" role="log" aria-live="polite"></ol>
</section>
</div>`;
}
