/**
 * Text that fits the terminal, for the runner's screens and commands: the width to use, wrapping at
 * spaces (never inside a word unless the word alone is wider than the line), and cutting a line that
 * must stay one line (a table row, a key bar) with "…". Widths count what the terminal shows: colour
 * codes take no room.
 */

const ANSI = /\x1b\[[0-9;]*m/g;

/** Columns the text takes on screen (colour codes removed; every character counts one). */
export function visibleWidth(text: string): number {
  return [...text.replace(ANSI, "")].length;
}

/**
 * The width to write to: the terminal's columns, else $COLUMNS, else 100 (a pipe or a log), never
 * below 40 so that nothing degenerates.
 */
export function outputWidth(stream: { columns?: number; isTTY?: boolean } = process.stdout, env: NodeJS.ProcessEnv = process.env): number {
  const fromEnv = Number(env.COLUMNS);
  const columns = stream.isTTY && stream.columns ? stream.columns : Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : 100;
  return Math.max(40, columns);
}

/** Wraps plain text at spaces to lines of at most `width` columns; a word wider than a line is split. */
export function wrapWords(text: string, width: number): string[] {
  const out: string[] = [];
  for (const paragraph of text.split("\n")) {
    // A line's own indentation (a diff, a nested list) is kept, on its continuation lines too.
    const lead = /^ */.exec(paragraph)![0].slice(0, Math.floor(width / 2));
    const room = width - lead.length;
    const lines: string[] = [];
    let line = "";
    for (let word of paragraph.trim().split(/ +/)) {
      while (visibleWidth(word) > room) {
        if (line) {
          lines.push(line);
          line = "";
        }
        const chars = [...word];
        lines.push(chars.slice(0, room).join(""));
        word = chars.slice(room).join("");
      }
      if (!line) line = word;
      else if (visibleWidth(line) + 1 + visibleWidth(word) <= room) line += ` ${word}`;
      else {
        lines.push(line);
        line = word;
      }
    }
    lines.push(line);
    out.push(...lines.map((l) => (l ? lead + l : l)));
  }
  return out;
}

/** Wraps `text` to `width` with `indent` before every line (also the continuation lines). */
export function indentWrap(text: string, width: number, indent: string): string[] {
  return wrapWords(text, Math.max(10, width - visibleWidth(indent))).map((l) => indent + l);
}

/** Cuts one line to `width` columns, ending it with "…" when cut; colour codes are kept and closed. */
export function fitLine(line: string, width: number): string {
  if (visibleWidth(line) <= width) return line;
  let out = "";
  let shown = 0;
  let colored = false;
  for (let i = 0; i < line.length; ) {
    ANSI.lastIndex = i;
    const m = line[i] === "\x1b" ? ANSI.exec(line) : null;
    if (m && m.index === i) {
      out += m[0];
      colored = true;
      i += m[0].length;
      continue;
    }
    const ch = String.fromCodePoint(line.codePointAt(i)!);
    if (shown === width - 1) break;
    out += ch;
    shown++;
    i += ch.length;
  }
  return `${out}…${colored ? "\x1b[0m" : ""}`;
}
