/**
 * Demo 1: the thundering-herd simulator, live in the page (`/herd`). The server renders the form,
 * filled from the URL, in the page's language; the page's script (page.ts) runs the sweep in Web
 * Workers (worker.ts) with the simulator of lib/herd/ and draws the results.
 */
import { HERD_STRATEGIES } from "../../herd/simulator.ts";
import type { Demo } from "../demo.ts";
import { escapeHtml, pageHtml } from "../html.ts";
import type { Lang } from "../lang.ts";
import {
  type Field,
  type HerdParams,
  ORIGINAL_SWEEP_QUERY,
  type ParamError,
  parseParams,
} from "./params.ts";
import { FORMULAS, formulaCaption, STRATEGY_NAMES, T, VN_DEFINITION } from "./text.ts";

export const herdDemo: Demo = {
  path: "/herd",
  title: T.title,
  summary: {
    en: "N clients write one row at once; a conflict backs off and tries again. Compare the backoff strategies' work and completion time, computed in your browser by the simulator of npm run herd.",
    zh: "N 个客户端同时写同一行，冲突的一方退避后重试。比较各种退避策略的调用次数和完成时间，由 npm run herd 的模拟器在你的浏览器里计算。",
  },
  bundles: { "herd.js": "herd/page.ts", "herd-worker.js": "herd/worker.ts" },
  start() {
    return {
      routes: [
        {
          method: "GET",
          path: "/herd",
          handle(req, res, ctx) {
            const parsed = parseParams(ctx.url.searchParams);
            const errors = parsed.ok ? [] : parsed.errors;
            const html = pageHtml({
              lang: ctx.lang,
              url: ctx.url,
              title: T.title[ctx.lang],
              body: herdBody(ctx.lang, parsed.params, errors, ctx.url.searchParams.has("lang")),
              scripts: ["/assets/herd.js"],
            });
            const data = Buffer.from(html);
            res.writeHead(200, {
              "Content-Type": "text/html; charset=utf-8",
              "Content-Length": data.length,
              "Cache-Control": "no-cache",
            });
            res.end(req.method === "HEAD" ? undefined : data);
          },
        },
      ],
    };
  },
};

const e = escapeHtml;

/** Escaped text with the commands in it set as code (and left untranslated). */
function prose(text: string): string {
  return e(text).replace(
    /npm run (herd -- --csv|herd|lesson 2)/g,
    (command) => `<code translate="no">${command}</code>`,
  );
}

function field(
  lang: Lang,
  name: Field,
  label: string,
  value: string,
  errors: readonly ParamError[],
  attrs: string,
  hint?: string,
): string {
  const error = errors.find((x) => x.field === name);
  const describedBy = [hint === undefined ? "" : `${name}-hint`, `${name}-error`]
    .filter((x) => x !== "")
    .join(" ");
  return `<div class="field">
<label for="${name}">${label}</label>
<input id="${name}" name="${name}" value="${e(value)}" ${attrs} aria-describedby="${describedBy}"${error === undefined ? "" : ' aria-invalid="true"'}>
${hint === undefined ? "" : `<small id="${name}-hint">${e(hint)}</small>`}
<small id="${name}-error" class="error">${error === undefined ? "" : e(error.message[lang])}</small>
</div>`;
}

/** The page: the controls, filled from the URL, and the empty places the script fills. */
export function herdBody(
  lang: Lang,
  p: HerdParams,
  errors: readonly ParamError[],
  langInUrl: boolean,
): string {
  const t = (k: keyof typeof T): string => prose(T[k][lang]);
  const strategyError = errors.find((x) => x.field === "strategies");
  const strategies = HERD_STRATEGIES.map(
    (s) => `<li>
<input type="checkbox" id="s-${s}" name="strategies" value="${s}"${p.strategies.includes(s) ? " checked" : ""}>
<label for="s-${s}"><span class="swatch swatch-${s}" aria-hidden="true"></span>${e(STRATEGY_NAMES[s][lang])} <code translate="no">${s}</code></label>
<span class="formula">${FORMULAS[s]}</span>
<small class="caption" id="caption-${s}">${e(formulaCaption(s, p)[lang])}</small>
</li>`,
  ).join("\n");
  const numberAttrs = (min: string, max: string, step: string): string =>
    `type="number" inputmode="decimal" min="${min}" max="${max}" step="${step}" required`;
  return `<h1>${t("title")}</h1>
<p>${t("intro")}</p>
<p>${t("sameCode")} ${t("calls")}</p>
<noscript><p class="error">${t("noscript")}</p></noscript>
<form id="herd-form" action="/herd" method="get" novalidate>
${langInUrl ? `<input type="hidden" name="lang" value="${lang}">` : ""}
<h2>${t("controls")}</h2>
<div class="fields">
${field(lang, "clients", t("clients"), p.clientsText, errors, 'type="text" inputmode="text" autocomplete="off" spellcheck="false" required', T.clientsHint[lang])}
${field(lang, "runs", t("runs"), String(p.runs), errors, numberAttrs("1", "10000", "1"))}
${field(lang, "seed", t("seed"), String(p.seed), errors, 'type="number" step="1" required')}
${field(lang, "base", t("base"), String(p.baseMs), errors, numberAttrs("0", "1000000", "any"))}
${field(lang, "cap", t("cap"), String(p.capMs), errors, numberAttrs("0", "1000000", "any"))}
${field(lang, "mean", t("mean"), String(p.meanMs), errors, numberAttrs("0", "1000000", "any"))}
${field(lang, "sd", t("sd"), String(p.sdMs), errors, numberAttrs("0", "1000000", "any"))}
</div>
<fieldset id="strategies" aria-describedby="formula-intro strategies-error">
<legend>${t("strategies")}</legend>
<p id="formula-intro">${t("formulaIntro")} ${VN_DEFINITION}</p>
<ul class="strategies">
${strategies}
</ul>
<small id="strategies-error" class="error">${strategyError === undefined ? "" : e(strategyError.message[lang])}</small>
</fieldset>
<p class="actions"><button type="submit" id="run">${t("run")}</button>
<a id="original" href="/herd?${ORIGINAL_SWEEP_QUERY}${langInUrl ? `&amp;lang=${lang}` : ""}">${t("original")}</a></p>
</form>

<section id="results" aria-labelledby="results-title">
<h2 id="results-title">${t("results")}</h2>
<p><label for="progress">${t("progress")}</label> <progress id="progress" max="1" value="0"></progress> <span id="progress-text"></span></p>
<p id="status" role="status" aria-live="polite" aria-atomic="true">${t("idle")}</p>
<ul id="errors" class="error" aria-live="assertive"></ul>
<div id="output" hidden>
<h3 id="at-n-title"></h3>
<div class="table-wrap"><table id="at-n" aria-labelledby="at-n-title"></table></div>
<p class="downloads"><a id="csv" download="herd.csv" href="#">${t("downloadCsv")}</a> <span class="cli">${t("cliSame")}</span></p>
<p class="command"><code id="cli-command" translate="no"></code></p>
<h3>${t("charts")}</h3>
<figure id="fig-calls"><div class="chart"></div><figcaption><a download="herd-calls.svg" href="#">${t("downloadSvg")}</a></figcaption></figure>
<figure id="fig-completion"><div class="chart"></div><figcaption><a download="herd-completion.svg" href="#">${t("downloadSvg")}</a></figcaption></figure>
<figure id="fig-writes"><div class="chart"></div><figcaption>${t("wavesCaption")} <a download="herd-write-times.svg" href="#">${t("downloadSvg")}</a></figcaption></figure>
<details><summary>${t("allPoints")}</summary><div class="table-wrap"><table id="all-points"></table></div></details>
<h3>${t("conclusions")}</h3>
<p id="noisy" hidden></p>
<ol id="conclusions"></ol>
<p class="source">${t("source")}</p>
</div>
</section>`;
}
