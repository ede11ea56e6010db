/**
 * The chaos run's progress: operations done, duplicates so far, processes killed, time elapsed and
 * an estimate of the rest. On a terminal it is one line redrawn in place; when the output is piped
 * (a log, CI), plain lines, one each time another tenth of the operations is done and at least
 * one every half minute, so a log stays short and readable. In the run's language (t()).
 */
import { t } from "../core/i18n.ts";
import { displayWidth, truncate } from "../core/text.ts";

export interface ChaosProgress {
  variant: string;
  /** Operations answered (2xx or a final refusal). */
  done: number;
  ops: number;
  /** Reports stored beyond the first for one operation, as read from the database so far. */
  duplicates: number;
  /** Processes killed (and started again) so far. */
  kills: number;
  elapsedMs: number;
  /** "main" while faults strike; "settling" once they have stopped. */
  phase: "main" | "settling";
}

function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, "0")} s`;
}

/** The figures of a line, as its messages take them. */
function figures(p: ChaosProgress): Record<string, string | number> {
  const pct = p.ops === 0 ? 100 : Math.floor((100 * p.done) / p.ops);
  const left =
    p.done >= p.ops
      ? t("done")
      : p.done === 0
        ? t("estimating")
        : t("about {time} left", { time: duration((p.elapsedMs * (p.ops - p.done)) / p.done) });
  return {
    variant: p.variant,
    done: p.done,
    ops: p.ops,
    pct,
    phase: p.phase,
    duplicates: p.duplicates,
    kills: p.kills,
    elapsed: duration(p.elapsedMs),
    left,
  };
}

/** One line: "fenced: 4,210/10,000 operations (42 %), 0 duplicates, 31 kills, 48 s, about 1 min 06 s left". */
export function progressLine(p: ChaosProgress): string {
  return t(
    "{variant}: {done, number}/{ops, number} operations ({pct} %){phase, select, settling {, settling} other {}}, {duplicates, plural, one {# duplicate} other {# duplicates}}, {kills, plural, one {# kill} other {# kills}}, {elapsed}, {left}",
    figures(p),
  );
}

/**
 * The line as it fits `columns` on a terminal: the whole line if it fits, else a shorter form with
 * every figure ("ops", "dup"), else that form cut with "…" (by display width: a Chinese character
 * takes two columns). A line wider than the terminal wraps, and a carriage return then goes back
 * to the start of its last row only: every redraw would leave a row behind.
 */
export function fittedLine(p: ChaosProgress, columns: number): string {
  const room = Math.max(10, columns - 1);
  const full = progressLine(p);
  if (displayWidth(full) <= room) return full;
  const short = t(
    "{variant}: {done, number}/{ops, number} ops ({pct} %){phase, select, settling {, settling} other {}}, {duplicates, number} dup, {kills, plural, one {# kill} other {# kills}}, {elapsed}, {left}",
    figures(p),
  );
  return truncate(short, room);
}

/** When piped, a plain line at least this often, ms, even within one tenth of the run. */
export const PLAIN_EVERY_MS = 30_000;

export interface ProgressPrinter {
  update(p: ChaosProgress): void;
  /** Ends the display (the terminal line is cleared; plain output prints nothing more). */
  end(): void;
}

/**
 * Writes progress to `out`: redrawn in place when `tty` (cut to `out.columns`, read at each redraw
 * so that a resized terminal is followed), else a plain line per tenth of the run.
 */
export function progressPrinter(
  out: { write(text: string): unknown; columns?: number },
  tty: boolean,
): ProgressPrinter {
  let lastTenth = -1;
  let lastAtMs = 0;
  let drawn = false;
  return {
    update(p) {
      if (tty) {
        const columns = typeof out.columns === "number" && out.columns > 0 ? out.columns : 80;
        out.write(`\r${fittedLine(p, columns)}\x1b[K`);
        drawn = true;
        return;
      }
      const tenth = p.ops === 0 ? 10 : Math.floor((10 * p.done) / p.ops);
      // A line per tenth, and at least one every half minute on a long run.
      if (tenth === lastTenth && p.elapsedMs - lastAtMs < PLAIN_EVERY_MS) return;
      lastTenth = tenth;
      lastAtMs = p.elapsedMs;
      out.write(`${progressLine(p)}\n`);
    },
    end() {
      if (tty && drawn) out.write("\r\x1b[K");
      drawn = false;
    },
  };
}
