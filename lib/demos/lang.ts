/**
 * The demos' two languages: English and Chinese (the course's language). A page's language comes
 * from `?lang=en` / `?lang=zh` if given, else from the browser's `Accept-Language` (by its q
 * values), else English. Used by the server (to render a page) and by the pages' own scripts (to
 * read `<html lang>`), so both demos choose the same way.
 */

export type Lang = "en" | "zh";

/** The value of `<html lang>` for each language. */
export const HTML_LANG: Record<Lang, string> = { en: "en", zh: "zh-CN" };

/** A text in both languages. */
export type Text = Readonly<Record<Lang, string>>;

export function isLang(value: string | null | undefined): value is Lang {
  return value === "en" || value === "zh";
}

/** The language a value of `<html lang>` stands for ("zh-CN" → zh). */
export function langOfTag(tag: string | null | undefined): Lang {
  return tag?.toLowerCase().startsWith("zh") === true ? "zh" : "en";
}

/**
 * The language an `Accept-Language` header prefers among ours: the highest q wins, earlier first
 * on a tie; `zh`, `zh-CN`, `zh-TW`… count as zh, `en-*` as en; `*` or nothing we speak gives en.
 */
export function langFromAcceptLanguage(header: string | undefined): Lang {
  if (header === undefined) return "en";
  let best: { lang: Lang; q: number } | undefined;
  for (const part of header.split(",")) {
    const [tagPart, ...params] = part.trim().split(";");
    const tag = (tagPart ?? "").trim().toLowerCase();
    let q = 1;
    for (const p of params) {
      const m = /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(p);
      if (m !== null) q = Number(m[1]);
    }
    if (!Number.isFinite(q) || q <= 0) continue;
    const lang: Lang | undefined =
      tag === "zh" || tag.startsWith("zh-")
        ? "zh"
        : tag === "en" || tag.startsWith("en-")
          ? "en"
          : undefined;
    if (lang !== undefined && (best === undefined || q > best.q)) best = { lang, q };
  }
  return best?.lang ?? "en";
}

/** The page's language: `?lang=` if it names one of ours, else the Accept-Language header's choice. */
export function pickLang(url: URL, acceptLanguage: string | undefined): Lang {
  const asked = url.searchParams.get("lang");
  return isLang(asked) ? asked : langFromAcceptLanguage(acceptLanguage);
}

/** `url` with `lang` set to `lang` (for the language switch). */
export function withLang(url: URL, lang: Lang): string {
  const copy = new URL(url.href);
  copy.searchParams.set("lang", lang);
  return `${copy.pathname}${copy.search}`;
}
