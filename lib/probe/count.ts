/**
 * How the probe counts what a service stored: a URL that answers the rows (a JSON number, an array,
 * or an object with a `count`, `total`, `items`, `data` or `results`), following `Link: <…>;
 * rel="next"` pages (RFC 8288) as the tracker's GET /reports gives them; or a shell command that
 * prints a whole number (`sqlite3 app.db "SELECT count(*) FROM orders"`).
 */
import { exec } from "node:child_process";
import { httpCall } from "../client/client.ts";
import { t } from "../core/i18n.ts";

/** Pages followed at most, so that a Link loop cannot keep the probe forever. */
const MAX_PAGES = 1000;

export class CountError extends Error {}

/** Rows in one page's JSON body, or undefined when the body is none of the shapes above. */
export function rowsInBody(body: unknown): number | undefined {
  if (typeof body === "number" && Number.isInteger(body)) return body;
  if (typeof body === "string" && /^\s*\d+\s*$/.test(body)) return Number(body);
  if (Array.isArray(body)) return body.length;
  if (body !== null && typeof body === "object") {
    const o = body as Record<string, unknown>;
    for (const k of ["count", "total"]) if (typeof o[k] === "number") return o[k];
    for (const k of ["items", "data", "results"]) if (Array.isArray(o[k])) return o[k].length;
  }
  return undefined;
}

/** The next page's URL from a Link header, resolved against the page's own. */
export function nextPage(link: string | string[] | undefined, base: string): string | undefined {
  for (const part of [link ?? []].flat().join(",").split(",")) {
    const m = /<([^>]*)>\s*;.*\brel="?next"?/.exec(part);
    if (m) return new URL(m[1]!, base).href;
  }
  return undefined;
}

/** Counts by GET `url` (and its next pages) with `headers`. */
export async function countFromUrl(url: string, headers: Record<string, string>): Promise<number> {
  let total = 0;
  let page: string | undefined = url;
  for (let n = 0; page !== undefined; n++) {
    if (n === MAX_PAGES)
      throw new CountError(
        t("the count URL still had a next page after {pages} pages", { pages: MAX_PAGES }),
      );
    const o = await httpCall({ method: "GET", url: page, headers, timeoutMs: 10_000 });
    if (o.kind !== "response")
      throw new CountError(
        o.kind === "timeout"
          ? t("GET {page} got no answer (timeout)", { page })
          : t("GET {page} got no answer ({code})", { page, code: o.code }),
      );
    if (o.status !== 200)
      throw new CountError(t("GET {page} answered {status}, not 200", { page, status: o.status }));
    const rows = rowsInBody(o.body);
    if (rows === undefined)
      throw new CountError(
        t("GET {page} answered neither a number, nor a JSON array, nor '{\"count\": n}'", {
          page,
        }),
      );
    total += rows;
    page = nextPage(o.headers.link, page);
  }
  return total;
}

/** Counts by running `command` in a shell: it must print one whole number. */
export function countFromCommand(command: string): Promise<number> {
  return new Promise((resolve, reject) => {
    exec(command, { timeout: 30_000 }, (err, stdout, stderr) => {
      if (err)
        return reject(
          new CountError(
            t("--count-cmd failed: {why}", {
              why: (stderr || err.message).trim().split("\n")[0] ?? "",
            }),
          ),
        );
      const text = stdout.trim();
      if (!/^\d+$/.test(text))
        return reject(
          new CountError(
            t('--count-cmd printed "{text}", not a whole number', { text: text.slice(0, 40) }),
          ),
        );
      resolve(Number(text));
    });
  });
}

/** Runs a shell command (the restart command) and resolves when it has exited 0. */
export function runCommand(command: string, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    exec(command, { timeout: 60_000 }, (err, _stdout, stderr) => {
      if (err)
        reject(
          new CountError(
            t("{what} failed: {why}", {
              what,
              why: (stderr || err.message).trim().split("\n")[0] ?? "",
            }),
          ),
        );
      else resolve();
    });
  });
}
