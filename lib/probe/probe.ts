/**
 * `npm run probe`: lesson 11's cases against any HTTP endpoint, seen only from outside. The fault
 * proxy (proxy.ts) loses an answer for the lost-response case and holds one while `--restart-cmd`
 * kills and restarts the service for the crash case; the rows are counted by `--count-url` or
 * `--count-cmd` before and after each case. A case that needs what was not given is not run, and
 * the result says why.
 */

import { seeded } from "../core/random.ts";
import { type CaseRun, type Crasher, type Endpoint, runCase } from "./checks.ts";
import { countFromCommand, countFromUrl, runCommand } from "./count.ts";
import { startLossyProxy } from "./proxy.ts";
import { CASES, type CaseName } from "./verdict.ts";

/** The placeholder a body template holds where each operation's unique text goes. */
export const PLACEHOLDER = "{{unique}}";

/** The body when none is given: what the workbook's tracker takes. */
export const DEFAULT_BODY = `{"title": "probe ${PLACEHOLDER}"}`;

export interface ProbeOptions {
  url: string;
  otherUrl?: string;
  countUrl?: string;
  countCmd?: string;
  /** Headers on every request (the first caller's). */
  headers: Record<string, string>;
  /** Headers of the second caller, over `headers`. */
  callerHeaders?: Record<string, string>;
  /** The body template, JSON with PLACEHOLDER where the unique text goes. */
  body: string;
  restartCmd?: string;
  seed: number;
  /** Only these cases (default all). */
  cases?: readonly CaseName[];
}

export interface ProbeResult {
  url: string;
  seed: number;
  runs: CaseRun[];
}

/** The template with `unique` in place of each placeholder, parsed. */
export function fillBody(template: string, unique: string): unknown {
  return JSON.parse(template.split(PLACEHOLDER).join(unique));
}

/** A loopback address: 127.0.0.0/8, ::1 or localhost. */
export function isLoopback(url: string): boolean {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return host === "localhost" || host === "::1" || /^127(\.\d{1,3}){3}$/.test(host);
}

/** Runs every case against the endpoint, one after another (each counts rows before and after). */
export async function runProbe(
  o: ProbeOptions,
  onCase?: (run: CaseRun) => void,
): Promise<ProbeResult> {
  const target = new URL(o.url);
  const proxy = await startLossyProxy(target.origin);
  const count =
    o.countUrl !== undefined
      ? () => countFromUrl(o.countUrl!, o.headers)
      : o.countCmd !== undefined
        ? () => countFromCommand(o.countCmd!)
        : undefined;
  const endpoint: Endpoint = {
    url: o.url,
    ...(o.otherUrl !== undefined ? { otherUrl: o.otherUrl } : {}),
    headers: o.headers,
    ...(o.callerHeaders !== undefined ? { secondCaller: o.callerHeaders } : {}),
    body: (unique) => fillBody(o.body, unique),
    bodyVaries: o.body.includes(PLACEHOLDER),
    ...(count ? { rows: count } : {}),
  };
  const random = seeded(o.seed);
  const runs: CaseRun[] = [];
  try {
    for (const name of o.cases ?? CASES) {
      const crash = o.restartCmd !== undefined ? restarter(proxy, o.restartCmd) : undefined;
      const run = await runCase(name, { endpoint, hooks: crash ? { crash } : {}, proxy, random });
      onCase?.(run);
      runs.push(run);
    }
  } finally {
    await proxy.close();
  }
  return { url: o.url, seed: o.seed, runs };
}

/**
 * The crash from outside: the first attempt goes through the proxy, which holds the service's
 * answer (the work is done); the restart command kills the service and starts it again; then the
 * held answer is dropped, and the client retries against the restarted service.
 */
function restarter(proxy: Awaited<ReturnType<typeof startLossyProxy>>, command: string): Crasher {
  let done: Promise<void> | undefined;
  return {
    async arm(url) {
      done = proxy.holdNext().then(async (held) => {
        try {
          await runCommand(command, "--restart-cmd");
        } finally {
          held.drop();
        }
      });
      return proxy.via(url);
    },
    recovered: () => done ?? Promise.resolve(),
  };
}
