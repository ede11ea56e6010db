/**
 * Text on a terminal, for every lesson, tool and screen of the workbook: how wide a string looks,
 * the width to write to, wrapping, cutting and padding. A width counts the columns a terminal shows:
 * colour codes take none, a Chinese character (or a full-width mark such as "，") two, a combining
 * mark none, an emoji two. Pure functions, except `terminalWidth`.
 *
 * Widths are string-width's: a character's own from get-east-asian-width (the table string-width
 * reads), a cluster of characters (an accent, an emoji sequence) from string-width itself, loaded the
 * first time a text has one (loading it costs tens of milliseconds at every start, and lesson output,
 * English or Chinese, seldom has one). Escape codes are found with ansi-regex. The wrapping is our
 * own, because Chinese needs it: there are no spaces between Chinese words, so a line may also break
 * between two Chinese characters, but never before a closing mark (，。：；？！）」 …) nor after an
 * opening one (（「“ …), as Chinese typesetting does.
 */
import ansiRegex from "ansi-regex";
import { eastAsianWidth } from "get-east-asian-width";

/** The narrowest width we wrap to, whatever the terminal says. */
export const MIN_WIDTH = 40;
/** The width when the output is not a terminal and `$COLUMNS` is not set. */
export const PIPED_WIDTH = 100;

/**
 * The width to write to: the terminal's columns when the stream is one, else `$COLUMNS`, else 100 (a
 * pipe or a file). Never less than `MIN_WIDTH`.
 */
export function terminalWidth(
  stream: { isTTY?: boolean; columns?: number } = process.stdout,
  env: NodeJS.ProcessEnv = process.env,
): number {
  const fromTerminal =
    stream.isTTY === true && typeof stream.columns === "number" && stream.columns > 0
      ? stream.columns
      : undefined;
  const fromEnv = /^\s*\d+\s*$/.test(env.COLUMNS ?? "") ? Number(env.COLUMNS) : undefined;
  const width = fromTerminal ?? (fromEnv !== undefined && fromEnv > 0 ? fromEnv : PIPED_WIDTH);
  return Math.max(MIN_WIDTH, width);
}

/** An escape code (a colour, or any other terminal control sequence). */
const ESCAPE = ansiRegex();
const ESCAPE_START = /[\u001b\u009b]/;

/** The text without its colour codes (and any other escape codes). */
export function stripAnsi(text: string): string {
  return ESCAPE_START.test(text) ? text.replace(ESCAPE, "") : text;
}

/**
 * Finds what makes a text more than a row of one-unit characters: a combining or format mark (an
 * accent, a joiner, a variation selector), Hangul jamo, a character outside the Basic Multilingual
 * Plane (an emoji, a rare Chinese character), a carriage return. Without one, every UTF-16 unit is a
 * character of its own, and the text's width is the sum of its characters'.
 */
const COMPOSED = /[\p{M}\p{Cf}\u1100-\u11ff\ua960-\ua97f\ud7b0-\ud7ff\r]|[^\u0000-\uffff]/u;
const PRINTABLE_ASCII = /^[\u0020-\u007e]*$/;
/** Characters that take no room (string-width's rule for a character on its own). */
const INVISIBLE = /[\p{Default_Ignorable_Code_Point}\p{Cc}]/u;

let loadedStringWidth: ((text: string) => number) | undefined;
/**
 * string-width, loaded the first time it is needed. Through Node's require at run time, not an
 * import: the demos' browser bundles include this module (lib/herd/charts.ts) without measuring a
 * cluster, and need neither node:module nor string-width.
 */
function stringWidth(text: string): number {
  if (loadedStringWidth === undefined) {
    const { createRequire } = process.getBuiltinModule("node:module");
    loadedStringWidth = (
      createRequire(import.meta.url)("string-width") as typeof import("string-width")
    ).default;
  }
  return loadedStringWidth(text);
}

/** Columns of one grapheme, as string-width counts them (worked out once per grapheme, then remembered). */
const graphemeWidths = new Map<string, number>();
function graphemeWidth(g: string): number {
  if (g.length === 1) {
    const c = g.charCodeAt(0);
    if (c >= 0x20 && c < 0x7f) return 1;
    if (c >= 0x4e00 && c <= 0x9fff) return 2;
  }
  let w = graphemeWidths.get(g);
  if (w === undefined) {
    w = COMPOSED.test(g)
      ? stringWidth(g)
      : INVISIBLE.test(g)
        ? 0
        : eastAsianWidth(g.charCodeAt(0), { ambiguousAsWide: false });
    if (graphemeWidths.size < 10_000) graphemeWidths.set(g, w);
  }
  return w;
}

/** How many columns the text takes on a terminal. */
export function displayWidth(text: string): number {
  const plain = stripAnsi(text);
  if (PRINTABLE_ASCII.test(plain)) return plain.length;
  if (COMPOSED.test(plain)) return stringWidth(plain);
  let w = 0;
  for (let i = 0; i < plain.length; i++) w += graphemeWidth(plain[i]!);
  return w;
}

/** `text` followed by `fill` (one column wide) up to `width` columns; unchanged if it is that wide already. */
export function padEnd(text: string, width: number, fill = " "): string {
  return text + padding(text, width, fill);
}

/** `text` preceded by `fill` (one column wide) up to `width` columns; unchanged if it is that wide already. */
export function padStart(text: string, width: number, fill = " "): string {
  return padding(text, width, fill) + text;
}

function padding(text: string, width: number, fill: string): string {
  const missing = width - displayWidth(text);
  return missing > 0 ? fill.repeat(missing) : "";
}

// ## Pieces: escape codes and the characters a reader sees

/** A piece of a line: one escape code (`code`, no width) or one user-perceived character (grapheme). */
interface Piece {
  s: string;
  w: number;
  code: boolean;
}

let graphemes: Intl.Segmenter | undefined;

/** The escape codes and graphemes of a string, in order, each with its width. */
function pieces(text: string): Piece[] {
  const out: Piece[] = [];
  const ofText = (t: string): void => {
    if (!COMPOSED.test(t))
      for (let i = 0; i < t.length; i++)
        out.push({ s: t[i]!, w: graphemeWidth(t[i]!), code: false });
    else {
      graphemes ??= new Intl.Segmenter(undefined, { granularity: "grapheme" });
      for (const { segment } of graphemes.segment(t))
        out.push({ s: segment, w: graphemeWidth(segment), code: false });
    }
  };
  let last = 0;
  if (ESCAPE_START.test(text)) {
    for (const m of text.matchAll(ESCAPE)) {
      ofText(text.slice(last, m.index));
      out.push({ s: m[0], w: 0, code: true });
      last = m.index + m[0].length;
    }
  }
  ofText(text.slice(last));
  return out;
}

const join = (ps: readonly Piece[]): string => ps.map((p) => p.s).join("");

// ## Where a line may break inside a run without spaces (Chinese)

/** Chinese, Japanese kana, CJK punctuation and full-width forms: a line may break beside them. */
function isIdeographic(cp: number): boolean {
  return (
    (cp >= 0x2e80 && cp <= 0x2fff) || // radicals, ideographic description
    (cp >= 0x3000 && cp <= 0x33ff) || // CJK symbols and punctuation, kana, bopomofo, enclosed, compatibility
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) || // CJK compatibility forms
    (cp >= 0xff00 && cp <= 0xffef) || // full-width and half-width forms
    (cp >= 0x20000 && cp <= 0x3ffff)
  );
}

const codePoints = (chars: string): Set<number> =>
  new Set([...chars].map((c) => c.codePointAt(0)!));
/** Marks that never start a line: closing brackets and quotes, stops, commas, small kana, "…". */
const NO_BREAK_BEFORE = codePoints(
  "，。、：；？！）」』】〕〗〙〛〉》｝］〞〟”’…‥・ー々〻～〜ぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮヵヶ％．｡､｣" +
    ")]},.:;!?%\"'",
);
/** Marks that never end a line: opening brackets and quotes. */
const NO_BREAK_AFTER = codePoints("（「『【〔〖〘〚〈《｛［〝“‘＄￥" + "([{\"'$");

/** Whether a line may break between two characters (code points) written without a space between them. */
function breakBetweenCodes(a: number, b: number): boolean {
  if (!isIdeographic(a) && !isIdeographic(b)) return false;
  if (NO_BREAK_BEFORE.has(b) || NO_BREAK_AFTER.has(a)) return false;
  // "——" stays together.
  return !(a === 0x2014 && b === 0x2014);
}

/** Whether a line may break between two graphemes written without a space between them. */
function breakBetween(before: string, after: string): boolean {
  return breakBetweenCodes(before.codePointAt(before.length - 1)!, after.codePointAt(0)!);
}

/** A code that closes a style (reset, default colour, not bold…): at a break it stays on the line before. */
const CLOSING = /^\u001b\[(?:0?|22|23|24|27|28|29|39|49)m$/;

/**
 * The indexes `i` at which the pieces may break between `ps[i - 1]` and `ps[i]` without a space (a
 * break between Chinese characters). Codes between the two characters go with the second, except
 * codes that close a style, which stay with the first: the index points past them.
 */
function cjkBreaks(ps: readonly Piece[]): Set<number> {
  const out = new Set<number>();
  let prev = -1;
  for (let i = 0; i < ps.length; i++) {
    const p = ps[i]!;
    if (p.code || p.w === 0) continue;
    if (prev >= 0 && breakBetween(ps[prev]!.s, p.s)) {
      let at = prev + 1;
      while (at < i && ps[at]!.code && CLOSING.test(ps[at]!.s)) at++;
      out.add(at);
    }
    prev = i;
  }
  return out;
}

/** The characters of `isIdeographic`, as a regular expression class. */
const IDEOGRAPHIC = String.raw`[\u2e80-\u2fff\u3000-\u33ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef\u{20000}-\u{3ffff}]`;
const MAYBE_CJK = new RegExp(IDEOGRAPHIC, "u");
/**
 * A line break in the source (with the spaces around it) between two Chinese characters: a browser
 * joins the two, and so does `wrap` (elsewhere a line break becomes a space).
 */
const CJK_LINE_BREAK = new RegExp(
  String.raw`(?<=${IDEOGRAPHIC}(?:\u001b\[[0-9;]*m)*)[^\S\n]*\n\s*(?=(?:\u001b\[[0-9;]*m)*${IDEOGRAPHIC})`,
  "gu",
);

// ## Wrapping

/** A unit of wrapping: kept whole unless it alone is wider than the line. */
interface Unit {
  s: string;
  w: number;
  /** A space before it (it starts a word), or nothing (it goes on a run of Chinese). */
  spaced: boolean;
}

/** A word (no white space) as units: itself, or its pieces between the places a Chinese run may break. */
function units(word: string, spaced: boolean): Unit[] {
  if (!MAYBE_CJK.test(word)) return [{ s: word, w: displayWidth(word), spaced }];
  const out: Unit[] = [];
  if (!ESCAPE_START.test(word) && !COMPOSED.test(word)) {
    // Every unit of the string a character: no pieces needed.
    let from = 0;
    let w = 0;
    for (let i = 0; i < word.length; i++) {
      if (i > from && breakBetweenCodes(word.charCodeAt(i - 1), word.charCodeAt(i))) {
        out.push({ s: word.slice(from, i), w, spaced: from === 0 && spaced });
        from = i;
        w = 0;
      }
      w += graphemeWidth(word[i]!);
    }
    out.push({ s: word.slice(from), w, spaced: from === 0 && spaced });
    return out;
  }
  const ps = pieces(word);
  let from = 0;
  for (const at of [...cjkBreaks(ps), ps.length]) {
    const part = ps.slice(from, at);
    out.push({ s: join(part), w: part.reduce((n, p) => n + p.w, 0), spaced: from === 0 && spaced });
    from = at;
  }
  return out;
}

/**
 * Where a hard break goes when piece `at` does not fit: there, or in Chinese a character or two
 * earlier if that would start the next line with a closing mark or end this one with an opening mark,
 * as long as the line (from `from`) keeps a character. In a path or a URL (a word with a "/"), right
 * after its last "/" that fits, so that a file name is not cut in two; else at the edge.
 */
function hardBreak(ps: readonly Piece[], from: number, at: number): number {
  for (let i = at; i > from && ps[i - 1]!.s !== " "; i--) if (ps[i - 1]!.s === "/") return i;
  const visibleBefore = (i: number): number => {
    let j = i - 1;
    while (j >= from && (ps[j]!.code || ps[j]!.w === 0)) j--;
    return j;
  };
  for (let step = 0; step < 2; step++) {
    const prev = visibleBefore(at);
    const next = ps.slice(at).find((p) => !p.code && p.w > 0);
    if (prev < from || next === undefined || breakBetween(ps[prev]!.s, next.s)) break;
    const cjk = isIdeographic(ps[prev]!.s.codePointAt(0)!) || isIdeographic(next.s.codePointAt(0)!);
    if (!cjk || visibleBefore(prev) < from) break;
    at = prev;
  }
  return at;
}

/** Splits a unit wider than `width` into pieces of at most `width` columns (a hard break). */
function breakUnit(text: string, width: number): string[] {
  const ps = pieces(text);
  const out: string[] = [];
  let from = 0;
  let w = 0;
  for (let i = 0; i < ps.length; i++) {
    if (w + ps[i]!.w > width && w > 0) {
      const at = hardBreak(ps, from, i);
      out.push(join(ps.slice(from, at)));
      from = at;
      w = ps.slice(at, i).reduce((n, p) => n + p.w, 0);
    }
    w += ps[i]!.w;
  }
  if (from < ps.length) out.push(join(ps.slice(from)));
  return out;
}

/**
 * Greedy word wrap of a paragraph to `width` columns (`restWidth` for the lines after the first). Runs
 * of white space become one space (line breaks too: a paragraph's pre-wrapped lines are reflowed; a
 * line break between two Chinese characters joins them without a space). A line breaks at a space, or
 * between two Chinese characters (never before a closing mark such as "，" or "）", never after an
 * opening one such as "（" or "“"); a word is broken only when it alone is wider than the line. A
 * colour that spans a break is closed at the end of the line and opened again on the next, so each
 * line stands alone.
 */
export function wrap(text: string, width: number, restWidth = width): string[] {
  const lines: string[] = [];
  const limit = (): number => Math.max(1, lines.length === 0 ? width : restWidth);
  let current = "";
  let currentWidth = 0;
  const words = (
    text.includes("\n") && MAYBE_CJK.test(text) ? text.replace(CJK_LINE_BREAK, "") : text
  )
    .split(/\s+/)
    .filter((x) => x !== "");
  for (const [k, word] of words.entries()) {
    for (const u of units(word, k > 0)) {
      const gap = u.spaced ? 1 : 0;
      if (current === "") {
        current = u.s;
        currentWidth = u.w;
      } else if (u.w === 0 || currentWidth + gap + u.w <= limit()) {
        // A word of codes only goes on the line as it is.
        current += (u.w === 0 || !u.spaced ? "" : " ") + u.s;
        currentWidth += u.w === 0 ? 0 : gap + u.w;
        continue;
      } else {
        lines.push(current);
        current = u.s;
        currentWidth = u.w;
      }
      // A unit wider than the line: break it.
      while (currentWidth > limit()) {
        const [head = "", ...tail] = breakUnit(current, limit());
        lines.push(head);
        current = tail.join("");
        currentWidth = displayWidth(current);
      }
    }
  }
  if (current !== "") lines.push(current);
  return carryColour(lines);
}

/**
 * `prefix` then `text` wrapped to `width`; the lines after the first start with `hang` (default: as
 * many spaces as the prefix is wide), so that the text stands in one column.
 */
export function wrapHanging(
  prefix: string,
  text: string,
  width: number,
  hang = " ".repeat(displayWidth(prefix)),
): string[] {
  const [first = "", ...rest] = wrap(
    text,
    width - displayWidth(prefix),
    width - displayWidth(hang),
  );
  return [prefix + first, ...rest.map((l) => hang + l)];
}

/**
 * A pre-formatted line (a trace event, a chart's legend, aligned columns) fitted to `width`: as it is
 * if it fits; else cut into lines, each as it was: its runs of spaces stay. The continuation lines are
 * indented by the line's own leading spaces plus `extraIndent`. A line breaks at the last space that
 * fits, after a comma not followed by a space or a digit (as in JSON), or between two Chinese
 * characters (the same rules as `wrap`); else at the edge.
 */
export function wrapKeepingSpaces(line: string, width: number, extraIndent = 2): string[] {
  if (displayWidth(line) <= width) return [line];
  const lead = /^\s*/.exec(stripAnsi(line))![0].length;
  const indent = Math.min(lead, Math.floor(width / 2));
  const hang = " ".repeat(Math.min(indent + extraIndent, Math.floor(width / 2)));
  const ps = pieces(line);
  const cjk = MAYBE_CJK.test(line) ? cjkBreaks(ps) : new Set<number>();
  // The width of the pieces from i to the end.
  const after = new Array<number>(ps.length + 1).fill(0);
  for (let i = ps.length - 1; i >= 0; i--) after[i] = after[i + 1]! + ps[i]!.w;
  const out: string[] = [];
  let from = 0;
  while (after[from]! > width - (out.length === 0 ? 0 : hang.length)) {
    const room = width - (out.length === 0 ? 0 : hang.length);
    // A break before piece i: at a space (after some text), after a comma followed by neither a space
    // nor a digit, or where a run of Chinese may break. The last one at which the line still fits,
    // else a hard break at the edge.
    let seenText = false;
    let w = 0;
    let cut = -1;
    let hard = ps.length;
    for (let i = from; i < ps.length; i++) {
      const p = ps[i]!;
      if (
        seenText &&
        (p.s === " " || cjk.has(i) || (ps[i - 1]!.s === "," && !p.code && !/[\d ]/.test(p.s)))
      )
        cut = i;
      if (w + p.w > room) {
        hard = i;
        break;
      }
      if (p.w > 0 && p.s !== " ") seenText = true;
      w += p.w;
    }
    const at =
      cut > from ? cut : Math.max(from + 1, hard < ps.length ? hardBreak(ps, from, hard) : hard);
    out.push((out.length === 0 ? "" : hang) + join(ps.slice(from, at)).trimEnd());
    from = at;
    while (from < ps.length && ps[from]!.s === " ") from++;
  }
  const rest = join(ps.slice(from));
  if (stripAnsi(rest).trim() !== "" || out.length === 0)
    out.push((out.length === 0 ? "" : hang) + rest);
  return carryColour(out);
}

/**
 * The width of the widest unit that `wrap` keeps whole: a word, or in Chinese a character (with the
 * marks that may not be parted from it). A column narrower than this breaks words.
 */
export function widestWord(text: string): number {
  let widest = 0;
  for (const word of text.split(/\s+/))
    if (word !== "") for (const u of units(word, false)) widest = Math.max(widest, u.w);
  return widest;
}

/** Cuts a line to `width` columns, ending it with "…" when something was cut; colour is kept and closed. */
export function truncate(line: string, width: number): string {
  if (displayWidth(line) <= width) return line;
  let out = "";
  let w = 0;
  let coloured = false;
  for (const p of pieces(line)) {
    if (p.code) {
      out += p.s;
      coloured = true;
      continue;
    }
    if (w + p.w > width - 1) break;
    out += p.s;
    w += p.w;
  }
  return `${out}…${coloured ? "\u001b[0m" : ""}`;
}

// ## Colour across line breaks

const SGR = /\u001b\[[0-9;]*m/g;

/**
 * Makes each line stand alone: a colour still open at a line's end is reset there and opened again
 * at the start of the next line. Lines without colour codes are returned as they are.
 */
function carryColour(lines: string[]): string[] {
  if (!lines.some((l) => l.includes("\u001b["))) return lines;
  let open: string[] = [];
  return lines.map((line) => {
    const out = open.join("") + line;
    for (const m of line.matchAll(SGR)) {
      if (m[0] === "\u001b[0m" || m[0] === "\u001b[m") open = [];
      else open.push(m[0]);
    }
    // A style closes itself (e.g. 39 after 32); keep only codes after the last full reset. If the
    // line ends with every opened style closed, nothing is carried.
    if (open.length > 0 && closesAll(open)) open = [];
    return open.length > 0 ? `${out}\u001b[0m` : out;
  });
}

/** Whether a sequence of SGR codes ends with every style it opened closed again. */
function closesAll(codes: string[]): boolean {
  const CLOSE: Record<string, string> = {
    "1": "22",
    "2": "22",
    "3": "23",
    "4": "24",
    "7": "27",
    "8": "28",
    "9": "29",
  };
  const active = new Map<string, number>();
  for (const code of codes) {
    for (const n of code.slice(2, -1).split(";")) {
      const num = Number(n);
      const group =
        (num >= 30 && num <= 39) || (num >= 90 && num <= 97)
          ? "fg"
          : (num >= 40 && num <= 49) || (num >= 100 && num <= 107)
            ? "bg"
            : (CLOSE[n] ?? n);
      const isClose = n === "39" || n === "49" || Object.values(CLOSE).includes(n);
      if (isClose) active.delete(group);
      else active.set(group, num);
    }
  }
  return active.size === 0;
}
