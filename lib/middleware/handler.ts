/**
 * The bug-report handler that sits behind every package in lesson 11, written once, and the plan
 * that makes its next call misbehave on purpose: stop before its work until the lesson lets it go
 * (two requests at once), answer 500 or throw before its work (a failure that left nothing behind),
 * or kill its own process with SIGKILL after the INSERT and before the answer (the crash). Only the
 * next call is affected; every later one does its work.
 */
import { type Gate, gate } from "../core/gate.ts";
import type { FiledReport, ReportsDb } from "./reports-db.ts";

export type Misstep = "hold" | "500" | "throw" | "crash";

/** What the handler answers, before any package turns it into an HTTP response. */
export interface HandlerAnswer {
  status: number;
  body: FiledReport | { title: string; status: number; detail: string };
}

/** Thrown by the handler on the "throw" misstep: what an unexpected exception looks like. */
export class HandlerFailure extends Error {}

export class HandlerPlan {
  #next: Misstep | undefined;
  #held: Gate | undefined;
  #release: Gate | undefined;
  /** Handler calls so far (a replay answered by the package is not one). */
  calls = 0;

  /** The next call stops before its work: `held` resolves when it has, `release()` lets it go. */
  holdNext(): { held: Promise<void>; release(): void } {
    this.#next = "hold";
    const held = gate();
    const release = gate();
    this.#held = held;
    this.#release = release;
    return { held: held.passed, release: () => release.open() };
  }

  failNext(how: "500" | "throw"): void {
    this.#next = how;
  }

  crashNext(): void {
    this.#next = "crash";
  }

  /** The misstep of the call now starting, if any (it is used up). */
  take(): Misstep | undefined {
    this.calls++;
    const m = this.#next;
    this.#next = undefined;
    return m;
  }

  /** Called by a held call: says it has stopped, waits to be let go. */
  async hold(): Promise<void> {
    this.#held?.open();
    await this.#release?.passed;
  }
}

/** The request as the handler needs it: who asks, on which route, with which JSON body. */
export interface ReportRequest {
  caller: string;
  route: string;
  body: unknown;
}

/**
 * Files the report: validates the body, does the misstep planned for this call, INSERTs one row and
 * answers 201 with it. `crash` kills the process (only a server in a child process is given one).
 */
export async function fileReport(
  db: ReportsDb,
  plan: HandlerPlan,
  req: ReportRequest,
  crash?: () => void,
): Promise<HandlerAnswer> {
  const input = (typeof req.body === "object" && req.body !== null ? req.body : {}) as {
    title?: unknown;
    body?: unknown;
  };
  if (typeof input.title !== "string" || input.title.trim() === "") {
    return {
      status: 400,
      body: { title: "Bad Request", status: 400, detail: "a report needs a title" },
    };
  }
  const misstep = plan.take();
  if (misstep === "hold") await plan.hold();
  if (misstep === "500") {
    return {
      status: 500,
      body: {
        title: "Internal Server Error",
        status: 500,
        detail: "the database was busy (injected); nothing was stored",
      },
    };
  }
  if (misstep === "throw")
    throw new HandlerFailure("the handler threw before its work (injected); nothing was stored");
  const row = db.insert({
    title: input.title,
    body: typeof input.body === "string" ? input.body : "",
    caller: req.caller,
    route: req.route,
  });
  if (misstep === "crash") crash?.();
  return { status: 201, body: row };
}
