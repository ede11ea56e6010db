/**
 * The ten cases run against an HTTP endpoint: the same code for lesson 11 (a middleware's server
 * built here, with hooks into its handler) and for `npm run probe` (somebody's service, seen only
 * from outside). A case sends a few logical operations with one Idempotency-Key through a same-key
 * client (one key per operation, reused on every retry), records every answer, counts the rows the
 * service stored, and leaves the verdict to `judge` (verdict.ts).
 *
 * What a case needs and the probe may not have is said, not guessed: no count of rows, no second
 * caller, no second route, no way to make the handler fail or the process crash. Ordering is done
 * with gates (the held handler, the held answer), never with a sleep; the only waits are the
 * client's own backoff between retries.
 */

import { httpCall, type Outcome } from "../client/client.ts";
import { sleep } from "../core/clock.ts";
import { type Random, uuid } from "../core/random.ts";
import type { LossyProxy } from "./proxy.ts";
import {
  type Attempted,
  type CaseFacts,
  type CaseName,
  type Judged,
  judge,
  type Operation,
  type Seen,
} from "./verdict.ts";

/** The service, as the cases see it. */
export interface Endpoint {
  /** Where the operations are POSTed. */
  url: string;
  /** A second route that also creates something (the different-path case); absent: not run. */
  otherUrl?: string;
  /** Headers on every request: the first caller's (its Authorization, if any). */
  headers: Record<string, string>;
  /** Headers that make a request the second caller's (merged over `headers`); absent: not run. */
  secondCaller?: Record<string, string>;
  /** A request body; `unique` differs per operation where the case needs two bodies. */
  body(unique: string): unknown;
  /** Whether `body(unique)` changes with `unique` (the different-body case needs two bodies). */
  bodyVaries: boolean;
  /** Rows stored so far; absent: the cases that judge by rows are not run. */
  rows?(): Promise<number>;
}

/** What a server built for the lesson lets the cases do inside it. The probe has none of these. */
export interface ServiceHooks {
  /**
   * The next handler call stops before its work; `held` resolves when it has, `release` lets it go.
   */
  holdNextHandler?(): { held: Promise<void>; release(): void };
  /** The next handler call answers 500, or throws, before its work. */
  failNextHandler?(how: "500" | "throw"): void;
  crash?: Crasher;
}

/** A way to take the process down during an operation and bring it back on the same files. */
export interface Crasher {
  /** Prepares the crash of the next request to `url`; returns the URL its first attempt goes to. */
  arm(url: string): Promise<string>;
  /** Before the retry: resolves once the service listens again. */
  recovered(): Promise<void>;
}

/** Why a case was not run. */
export type Skip =
  | "no-count"
  | "no-second-caller"
  | "no-other-url"
  | "no-placeholder"
  | "no-handler-hooks"
  | "no-restart";

export type CaseRun =
  | {
      case: CaseName;
      ran: true;
      facts: CaseFacts;
      judged: Judged;
      ms: number;
      note?: "uncontrolled-timing";
    }
  | { case: CaseName; ran: false; skip: Skip };

export interface CaseContext {
  endpoint: Endpoint;
  hooks: ServiceHooks;
  /** The fault proxy in front of the service (the lost-response case). */
  proxy: LossyProxy;
  random: Random;
}

/**
 * The statuses a same-key client sends again: no answer, in progress, too early, too many, server
 * errors.
 */
const RETRIED = (s: Seen): boolean =>
  typeof s !== "number" || s === 409 || s === 425 || s === 429 || s >= 500;
/** Attempts per call: the first and three retries. */
export const ATTEMPTS = 4;
/** The wait before retry n (1, 2, 3): 100, 200, 400 ms. */
export const backoffMs = (retry: number): number => 100 * 2 ** (retry - 1);
const ATTEMPT_TIMEOUT_MS = 10_000;

interface Call {
  op: number;
  url: string;
  /**
   * The first attempt's URL, when it differs (through the proxy, or to a process that will crash).
   */
  firstUrl?: string;
  /**
   * How a first attempt without an answer is named ("lost" through the proxy, "reset" at a crash).
   */
  firstSilence?: Seen;
  key: string;
  body: unknown;
  headers: Record<string, string>;
  /** Called before each retry, after the backoff. */
  beforeRetry?(): Promise<void>;
  /** Called with each answer as it comes. */
  onAnswer?(seen: Seen): void;
}

/** One case run: the log it keeps while it runs. */
class Run {
  readonly attempts: Attempted[] = [];
  readonly #t0 = performance.now();
  readonly #ctx: CaseContext;
  constructor(ctx: CaseContext) {
    this.#ctx = ctx;
  }

  /** One logical operation's call: attempts until a final answer or ATTEMPTS. */
  async send(c: Call): Promise<void> {
    for (let n = 1; n <= ATTEMPTS; n++) {
      if (n > 1) {
        await sleep(backoffMs(n - 1));
        await c.beforeRetry?.();
      }
      const first = n === 1 && c.firstUrl !== undefined;
      const outcome = await httpCall({
        method: "POST",
        url: first ? c.firstUrl! : c.url,
        body: c.body,
        headers: { ...c.headers, "idempotency-key": c.key },
        timeoutMs: ATTEMPT_TIMEOUT_MS,
      });
      const seen = seenOf(outcome, n === 1 ? c.firstSilence : undefined);
      this.attempts.push({
        op: c.op,
        seen,
        body: bodyText(outcome),
        atMs: performance.now() - this.#t0,
      });
      c.onAnswer?.(seen);
      if (!RETRIED(seen)) return;
    }
  }

  key(): string {
    return uuid(this.#ctx.random);
  }

  get ms(): number {
    return Math.round(performance.now() - this.#t0);
  }
}

function seenOf(o: Outcome, silence: Seen | undefined): Seen {
  if (o.kind === "response") return o.status;
  if (o.kind === "timeout") return "timeout";
  return silence ?? "reset";
}

function bodyText(o: Outcome): string {
  if (o.kind !== "response" || o.body === undefined) return "";
  return typeof o.body === "string" ? o.body : JSON.stringify(o.body);
}

/** The caller an operation is sent as: its Authorization header, "" for none. */
function callerOf(headers: Record<string, string>): string {
  const entry = Object.entries(headers).find(([h]) => h.toLowerCase() === "authorization");
  return entry?.[1] ?? "";
}

/** Why `name` cannot run here, or undefined when it can. */
export function skipReason(
  name: CaseName,
  ctx: Pick<CaseContext, "endpoint" | "hooks">,
): Skip | undefined {
  const { endpoint, hooks } = ctx;
  if (name === "handler-500" || name === "handler-throws")
    return hooks.failNextHandler ? undefined : "no-handler-hooks";
  if (name === "crash" && !hooks.crash) return "no-restart";
  if (name === "other-caller") return endpoint.secondCaller ? undefined : "no-second-caller";
  if (name === "different-path" && !endpoint.otherUrl) return "no-other-url";
  if (name === "different-body" && !endpoint.bodyVaries) return "no-placeholder";
  if (!endpoint.rows) return "no-count";
  return undefined;
}

/** Runs one case against the endpoint; the rows are counted before and after it. */
export async function runCase(name: CaseName, ctx: CaseContext): Promise<CaseRun> {
  const skip = skipReason(name, ctx);
  if (skip) return { case: name, ran: false, skip };
  const { endpoint, hooks } = ctx;
  const before = await endpoint.rows!();
  const run = new Run(ctx);
  const key = run.key();
  const body = endpoint.body(`${name}-${key.slice(0, 8)}`);
  const headers = endpoint.headers;
  const one = { caller: callerOf(headers), mayRefuse: false };
  let operations: Operation[] = [one];
  let note: "uncontrolled-timing" | undefined;
  const base = { op: 0, url: endpoint.url, key, body, headers };

  switch (name) {
    case "same-key-twice":
      await run.send(base);
      await run.send(base);
      break;
    case "different-body":
      operations = [one, { ...one, mayRefuse: true }];
      await run.send(base);
      await run.send({ ...base, op: 1, body: endpoint.body(`${name}-${key.slice(0, 8)}-other`) });
      break;
    case "different-path":
      operations = [one, { ...one, mayRefuse: true }];
      await run.send(base);
      await run.send({ ...base, op: 1, url: endpoint.otherUrl! });
      break;
    case "concurrent":
      note = await concurrent(run, base, hooks);
      break;
    case "lost-response": {
      const lost = ctx.proxy.loseNext();
      await run.send({
        ...base,
        firstUrl: ctx.proxy.via(endpoint.url),
        firstSilence: "lost",
        beforeRetry: () => lost.then(() => {}),
      });
      break;
    }
    case "handler-500":
    case "handler-throws":
      hooks.failNextHandler!(name === "handler-500" ? "500" : "throw");
      await run.send(base);
      break;
    case "crash": {
      const crasher = hooks.crash!;
      const firstUrl = await crasher.arm(endpoint.url);
      let recovered = false;
      await run.send({
        ...base,
        firstUrl,
        beforeRetry: async () => {
          if (recovered) return;
          recovered = true;
          await crasher.recovered();
        },
      });
      if (!recovered) await crasher.recovered();
      break;
    }
    case "other-caller": {
      const second = { ...headers, ...endpoint.secondCaller };
      operations = [one, { caller: callerOf(second), mayRefuse: false }];
      await run.send(base);
      await run.send({ ...base, op: 1, headers: second });
      break;
    }
    case "quoted-key":
      await run.send({ ...base, key: `"${key}"` });
      await run.send(base);
      break;
  }
  const rows = (await endpoint.rows!()) - before;
  const facts: CaseFacts = { case: name, operations, attempts: run.attempts, rows };
  return {
    case: name,
    ran: true,
    facts,
    judged: judge(facts),
    ms: run.ms,
    ...(note ? { note } : {}),
  };
}

/**
 * Two requests of one operation at once, one key. With a hook into the handler the first is held
 * before its work until the second has its answer, so the two overlap on any machine; the second's
 * retries wait until the first is done. Without one (the probe), both are sent together and the
 * service's speed decides whether they overlap: said so beside the result.
 */
async function concurrent(
  run: Run,
  base: Call,
  hooks: ServiceHooks,
): Promise<"uncontrolled-timing" | undefined> {
  if (!hooks.holdNextHandler) {
    await Promise.all([run.send(base), run.send(base)]);
    return "uncontrolled-timing";
  }
  const hold = hooks.holdNextHandler();
  const first = run.send(base);
  let released = false;
  const release = (): void => {
    if (released) return;
    released = true;
    hold.release();
  };
  // A service that refuses the first before its handler never reaches the hold: then it is done
  // first, and the hold is given up before the second could meet it.
  const held = await Promise.race([hold.held.then(() => true), first.then(() => false)]);
  if (!held) release();
  const second = run.send({
    ...base,
    onAnswer: release,
    beforeRetry: () => first,
  });
  await second;
  release();
  await first;
  return undefined;
}
