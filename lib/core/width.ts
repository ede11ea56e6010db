/**
 * Text that fits the terminal: how wide the output may be, how wide a string looks (colour codes
 * take no room, wide East Asian characters take two), and word wrapping that never breaks a word
 * unless the word alone is wider than the line. Pure functions, except `terminalWidth`.
 */

/** The narrowest width we wrap to, whatever the terminal says. */
export const MIN_WIDTH = 40;
/** The width when the output is not a terminal and `$COLUMNS` is not set. */
export const PIPED_WIDTH = 100;

/**
 * The width to write to: the terminal's columns when stdout is one, else `$COLUMNS`, else 100 (a
 * pipe or a file). Never less than `MIN_WIDTH`.
 */
export function terminalWidth(stream: { isTTY?: boolean; columns?: number } = process.stdout, env: NodeJS.ProcessEnv = process.env): number {
  const fromTerminal = stream.isTTY === true && typeof stream.columns === "number" && stream.columns > 0 ? stream.columns : undefined;
  const fromEnv = /^\s*\d+\s*$/.test(env.COLUMNS ?? "") ? Number(env.COLUMNS) : undefined;
  const width = fromTerminal ?? (fromEnv !== undefined && fromEnv > 0 ? fromEnv : PIPED_WIDTH);
  return Math.max(MIN_WIDTH, width);
}

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/g;

/** The text without colour codes. */
export function stripAnsi(text: string): string {
  return text.replace(ANSI, "");
}

/** Columns one character takes: 2 for wide East Asian characters, 0 for combining marks, else 1. */
function charWidth(cp: number): number {
  if ((cp >= 0x300 && cp <= 0x36f) || cp === 0x200b || (cp >= 0xfe00 && cp <= 0xfe0f)) return 0;
  if (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0x303e) ||
    (cp >= 0x3041 && cp <= 0x33ff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0xa000 && cp <= 0xa4cf) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1faff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  )
    return 2;
  return 1;
}

/** How many columns the text takes on a terminal (colour codes take none). */
export function visibleWidth(text: string): number {
  let n = 0;
  for (const ch of stripAnsi(text)) n += charWidth(ch.codePointAt(0)!);
  return n;
}

/** Pieces of a string: colour codes (zero width) and single characters. */
function pieces(text: string): { s: string; w: number }[] {
  const out: { s: string; w: number }[] = [];
  let last = 0;
  for (const m of text.matchAll(ANSI)) {
    for (const ch of text.slice(last, m.index)) out.push({ s: ch, w: charWidth(ch.codePointAt(0)!) });
    out.push({ s: m[0], w: 0 });
    last = m.index + m[0].length;
  }
  for (const ch of text.slice(last)) out.push({ s: ch, w: charWidth(ch.codePointAt(0)!) });
  return out;
}

/** Splits a word wider than `width` into pieces of at most `width` columns. */
function breakWord(word: string, width: number): string[] {
  const out: string[] = [];
  let current = "";
  let w = 0;
  for (const p of pieces(word)) {
    if (w + p.w > width && w > 0) {
      out.push(current);
      current = "";
      w = 0;
    }
    current += p.s;
    w += p.w;
  }
  if (current) out.push(current);
  return out;
}

/**
 * Greedy word wrap to `width` columns (`restWidth` for the lines after the first). Runs of white
 * space between words become one space (the text's own line breaks too: a paragraph's pre-wrapped
 * lines are reflowed). A word is broken only when it alone is wider than the line. Colour codes take
 * no room, and a colour that spans a break is closed at the end of the line and opened again on the
 * next, so each line stands alone.
 */
export function wrapText(text: string, width: number, restWidth = width): string[] {
  const lines: string[] = [];
  const limit = (): number => Math.max(1, lines.length === 0 ? width : restWidth);
  let current = "";
  let currentWidth = 0;
  for (const word of text.split(/\s+/).filter((x) => x !== "")) {
    const ww = visibleWidth(word);
    if (current === "") {
      current = word;
      currentWidth = ww;
    } else if (ww === 0 || currentWidth + 1 + ww <= limit()) {
      current += (ww === 0 ? "" : " ") + word;
      currentWidth += ww === 0 ? 0 : 1 + ww;
      continue;
    } else {
      lines.push(current);
      current = word;
      currentWidth = ww;
    }
    // A word wider than the line: break it.
    while (currentWidth > limit()) {
      const [head = "", ...tail] = breakWord(current, limit());
      lines.push(head);
      current = tail.join("");
      currentWidth = visibleWidth(current);
    }
  }
  if (current !== "") lines.push(current);
  return carryColour(lines);
}

/**
 * Makes each line stand alone: a colour still open at a line's end is reset there and opened again
 * at the start of the next line. Lines without colour codes are returned as they are.
 */
export function carryColour(lines: string[]): string[] {
  if (!lines.some((l) => l.includes("\u001b["))) return lines;
  let open: string[] = [];
  return lines.map((line) => {
    const out = open.join("") + line;
    for (const m of line.matchAll(ANSI)) {
      if (m[0] === "\u001b[0m" || m[0] === "\u001b[m") open = [];
      else open.push(m[0]);
    }
    // A style closes itself (e.g. 39 after 32); keep only codes after the last full reset. If the
    // line ends with every opened style closed, nothing is carried.
    if (open.length > 0 && closesAll(open)) open = [];
    return open.length > 0 ? out + "\u001b[0m" : out;
  });
}

/** Whether a sequence of SGR codes ends with every style it opened closed again. */
function closesAll(codes: string[]): boolean {
  const CLOSE: Record<string, string> = { "1": "22", "2": "22", "3": "23", "4": "24", "7": "27", "8": "28", "9": "29" };
  const active = new Map<string, number>();
  for (const code of codes) {
    for (const n of code.slice(2, -1).split(";")) {
      const num = Number(n);
      const group = (num >= 30 && num <= 39) || (num >= 90 && num <= 97) ? "fg" : (num >= 40 && num <= 49) || (num >= 100 && num <= 107) ? "bg" : (CLOSE[n] ?? n);
      const isClose = n === "39" || n === "49" || Object.values(CLOSE).includes(n);
      if (isClose) active.delete(group);
      else active.set(group, num);
    }
  }
  return active.size === 0;
}

/**
 * Wraps a line that is too wide, keeping its leading white space: continuation lines are indented
 * by that much plus `extraIndent`. Each line is cut at the last space (or comma) that fits and kept as it was
 * (runs of spaces inside it, as in a chart or aligned columns, stay as they are). A line that fits
 * is returned unchanged.
 */
export function fitLine(line: string, width: number, extraIndent = 2): string[] {
  if (visibleWidth(line) <= width) return [line];
  const lead = /^\s*/.exec(stripAnsi(line))![0].length;
  const indent = Math.min(lead, Math.floor(width / 2));
  const hang = " ".repeat(Math.min(indent + extraIndent, Math.floor(width / 2)));
  const out: string[] = [];
  let rest = line;
  while (visibleWidth(rest) > width - (out.length === 0 ? 0 : hang.length)) {
    const room = width - (out.length === 0 ? 0 : hang.length);
    const ps = pieces(rest);
    // The last space (after some text) at which the line still fits; else a hard break at the edge.
    let w = 0;
    let cut = -1;
    let hard = ps.length;
    let seenText = false;
    for (let i = 0; i < ps.length; i++) {
      if (w + ps[i]!.w > room) {
        hard = i;
        break;
      }
      // A break goes at a space, or after a comma followed by neither a space nor a digit (as in JSON).
      if (ps[i]!.s === " " && seenText) cut = i;
      else if (i > 0 && ps[i - 1]!.s === "," && !/[\d ]/.test(ps[i]!.s) && seenText) cut = i;
      if (ps[i]!.w > 0 && ps[i]!.s !== " ") seenText = true;
      w += ps[i]!.w;
    }
    const at = cut > 0 ? cut : Math.max(1, hard);
    const head = ps.slice(0, at).map((p) => p.s).join("").trimEnd();
    out.push((out.length === 0 ? "" : hang) + head);
    rest = ps.slice(at).map((p) => p.s).join("").replace(/^ +/, "");
  }
  if (stripAnsi(rest).trim() !== "" || out.length === 0) out.push((out.length === 0 ? "" : hang) + rest);
  return carryColour(out);
}

/**
 * `prefix` then `text` wrapped to `width`; lines after the first start with `hang` (default: as
 * many spaces as the prefix is wide).
 */
export function hangingWrap(prefix: string, text: string, width: number, hang = " ".repeat(visibleWidth(prefix))): string[] {
  const [first = "", ...rest] = wrapText(text, width - visibleWidth(prefix), width - visibleWidth(hang));
  return [prefix + first, ...rest.map((l) => hang + l)];
}

/** Cuts a line to `width` columns, ending it with "…" when something was cut. */
export function truncate(line: string, width: number): string {
  if (visibleWidth(line) <= width) return line;
  let out = "";
  let w = 0;
  let coloured = false;
  for (const p of pieces(line)) {
    if (p.w === 0 && p.s.startsWith("\u001b[")) {
      out += p.s;
      coloured = true;
      continue;
    }
    if (w + p.w > width - 1) break;
    out += p.s;
    w += p.w;
  }
  return out + "…" + (coloured ? "\u001b[0m" : "");
}
