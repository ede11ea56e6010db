/**
 * The HTML around every demo page: language, title, the shared stylesheet, a header with the way
 * back to the index and the language switch. Everything the page loads comes from the demo
 * server itself (no CDN, no outside fonts), which the Content-Security-Policy in server.ts enforces.
 */
import { HTML_LANG, type Lang, type Text, withLang } from "./lang.ts";

/** Text for HTML content or a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&${HTML_ENTITIES[c]!};`);
}

const HTML_ENTITIES: Record<string, string> = {
  "&": "amp",
  "<": "lt",
  ">": "gt",
  '"': "quot",
  "'": "#39",
};

const UI: Record<string, Text> = {
  site: { en: "retry-workbook demos", zh: "retry-workbook 演示" },
  index: { en: "All demos", zh: "全部演示" },
  language: { en: "Language", zh: "语言" },
  skip: { en: "Skip to the content", zh: "跳到正文" },
};

export interface PageSpec {
  lang: Lang;
  /** The request's URL (for the language switch's links). */
  url: URL;
  /** The document's title. */
  title: string;
  /** The markup inside `<main>`, already escaped. */
  body: string;
  /** Module scripts to load, e.g. ["/assets/herd.js"]. */
  scripts?: readonly string[];
  /** Extra stylesheets beside /static/demos.css. */
  styles?: readonly string[];
}

/** A whole page. */
export function pageHtml(spec: PageSpec): string {
  const { lang, url } = spec;
  const other: Lang = lang === "en" ? "zh" : "en";
  const indexHref = url.searchParams.has("lang") ? `/?lang=${lang}` : "/";
  const styles = ["/static/demos.css", ...(spec.styles ?? [])];
  return `<!doctype html>
<html lang="${HTML_LANG[lang]}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(spec.title)}</title>
<link rel="icon" href="data:,">
${styles.map((href) => `<link rel="stylesheet" href="${escapeHtml(href)}">`).join("\n")}
${(spec.scripts ?? []).map((src) => `<script type="module" src="${escapeHtml(src)}"></script>`).join("\n")}
</head>
<body>
<a class="skip" href="#main">${escapeHtml(UI.skip![lang])}</a>
<header class="site">
<nav aria-label="${escapeHtml(UI.site![lang])}">
<a href="${escapeHtml(indexHref)}">${escapeHtml(UI.index![lang])}</a>
<span class="lang-switch">${escapeHtml(UI.language![lang])}${lang === "zh" ? "：" : ": "}<a href="${escapeHtml(withLang(url, other))}" hreflang="${HTML_LANG[other]}" lang="${HTML_LANG[other]}">${other === "zh" ? "中文" : "English"}</a></span>
</nav>
</header>
<main id="main">
${spec.body}
</main>
</body>
</html>
`;
}
