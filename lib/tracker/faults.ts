/**
 * Fault injection on the server side, by request number. The server numbers requests as they arrive
 * (1, 2, 3, …); a plan says which request suffers which fault. Faults are gates the lesson or test
 * controls, never sleeps: a `slow` handler waits until `release(n)` is called, and anyone can await
 * the stages a request reaches (`reached(n, "committed")`).
 */
import { sleep } from "../core/clock.ts";
import { Signals } from "../core/gate.ts";
import { t } from "../core/i18n.ts";

/** The fault names (fixed: lessons, tests and the tracker's `--fault` flag use them). */
export const FAULT_NAMES = [
  "none",
  "drop-request",
  "lose-response",
  "slow",
  "crash-between-commits",
  "crash-after-claim",
  "pause-past-lease",
  "internal-error",
  "crash-before-commit",
] as const;
export type FaultName = (typeof FAULT_NAMES)[number];

/** What a fault does, in a sentence (the tracker's --help). */
export function faultHelp(fault: FaultName): string {
  switch (fault) {
    case "none":
      return t("no fault");
    case "drop-request":
      return t("the request is swallowed before any handler runs; the client hears nothing");
    case "lose-response":
      return t("the work is committed, then the answer never leaves: the client hears nothing");
    case "slow":
      return t("the handler stops before its work until released, outliving the client's timeout");
    case "crash-between-commits":
      return t("the server process is killed (SIGKILL) between two commits");
    case "crash-after-claim":
      return t("the server process is killed (SIGKILL) after claiming the key");
    case "pause-past-lease":
      return t(
        "the holder stops until another request has taken its key over and is done, then goes on",
      );
    case "internal-error":
      return t("the handler's work fails after it began: the server answers 500");
    case "crash-before-commit":
      return t(
        "the server process is killed (SIGKILL) after the handler's work, before the report is committed",
      );
  }
}

export function isFaultName(s: string): s is FaultName {
  return (FAULT_NAMES as readonly string[]).includes(s);
}

/**
 * The stages a request goes through, in order. Not every request reaches every stage: a dropped
 * request stops at "dropped", a lost response ends at "lost".
 */
export const STAGES = [
  "arrived", // the server has read the request line and headers
  "dropped", // drop-request: swallowed, no handler ran
  "held", // slow or pause-past-lease: the handler is stopped at its gate
  "taken-over", // pause-past-lease: another request has taken over the key this one holds
  "committed", // the handler's transaction committed
  "handled", // the handler is done, its answer decided, whether or not the client is still there
  "answered", // the answer was written to the socket
  "lost", // lose-response: the answer was thrown away
  "finished", // the request is over, whatever happened (answered, lost, dropped, failed)
] as const;
export type Stage = (typeof STAGES)[number];

/**
 * How a held request goes on: let go by the lesson or test (`release`), woken because another request
 * took its key over (pause-past-lease), or let go to fail (`fail`: its work then throws).
 */
export type Wake = "released" | "taken-over" | "fail";

export class Faults {
  readonly #plan = new Map<number, FaultName>();
  readonly #signals = new Signals();
  readonly #releases = new Signals<Wake>();
  /** A key (caller and key) → the request whose claim holds it now (for pause-past-lease). */
  readonly #holders = new Map<string, number>();
  /** Request → the key it claimed (to forget it). */
  readonly #keyOf = new Map<number, string>();
  #rule: ((requestNo: number) => FaultName | undefined) | undefined;
  #keepLast = Infinity;
  /** Finished requests, oldest first, while keepLast is in force. */
  readonly #finished: number[] = [];

  /** `new Faults({ 1: "lose-response" })`: request 1 loses its response. */
  constructor(plan: Record<number, FaultName> = {}) {
    for (const [n, f] of Object.entries(plan)) this.at(Number(n), f);
  }

  /** Request `requestNo` suffers `fault`. */
  at(requestNo: number, fault: FaultName): this {
    this.#plan.set(requestNo, fault);
    return this;
  }

  /** A rule for requests without a planned fault (e.g. every request, for the standalone tracker). */
  otherwise(rule: (requestNo: number) => FaultName | undefined): this {
    this.#rule = rule;
    return this;
  }

  /**
   * Remember only the last `count` requests' stages once they finish. Lessons and tests keep them all
   * (the default); a server that runs for hours (npm run tracker, the chaos run) must not.
   */
  keepLast(count: number): this {
    this.#keepLast = count;
    return this;
  }

  /** The fault for this request. */
  faultFor(requestNo: number): FaultName {
    return this.#plan.get(requestNo) ?? this.#rule?.(requestNo) ?? "none";
  }

  /** Resolves when request `requestNo` reaches `stage` (at once if it already has). */
  reached(requestNo: number, stage: Stage): Promise<void> {
    return this.#signals.when(`${requestNo}:${stage}`);
  }

  /**
   * Resolves `afterMs` after request `requestNo` reached a stage from which no answer comes in time
   * (dropped, held, lost): when a client with that much patience gives up on it. A lesson hands this
   * to its client (FileReportOptions.giveUp), so that only the requests its faults strike time out,
   * and an answered one is never late, however busy the machine is. Never resolves for a request
   * that is answered.
   */
  noAnswer(requestNo: number, afterMs: number): Promise<void> {
    const silent = ["dropped", "held", "lost"] as const;
    return Promise.race(silent.map((stage) => this.reached(requestNo, stage))).then(() =>
      sleep(afterMs),
    );
  }

  hasReached(requestNo: number, stage: Stage): boolean {
    return this.#signals.fired(`${requestNo}:${stage}`);
  }

  /** Lets a held request (slow, pause-past-lease) go on. */
  release(requestNo: number): void {
    this.#releases.fire(String(requestNo), "released");
  }

  /** Lets a held request go on to fail: its work throws after the pause, as `internal-error` would. */
  fail(requestNo: number): void {
    this.#releases.fire(String(requestNo), "fail");
  }

  // ---- called by the server ----

  /** The server reports that a request reached a stage. */
  mark(requestNo: number, stage: Stage): void {
    this.#signals.fire(`${requestNo}:${stage}`);
    if (stage === "finished" && Number.isFinite(this.#keepLast)) {
      this.#finished.push(requestNo);
      // Only a finished request is forgotten: nothing waits on its gates any more.
      if (this.#finished.length > this.#keepLast) this.#forget(this.#finished.shift()!);
    }
  }

  #forget(requestNo: number): void {
    for (const stage of STAGES) this.#signals.delete(`${requestNo}:${stage}`);
    this.#releases.delete(String(requestNo));
    this.#plan.delete(requestNo);
    const key = this.#keyOf.get(requestNo);
    if (key !== undefined && this.#holders.get(key) === requestNo) this.#holders.delete(key);
    this.#keyOf.delete(requestNo);
  }

  /**
   * The server reports that request `requestNo` claimed `key` (its caller and key), taking it over
   * from the claim before it if `takenOver` (its lease had run out). A pause-past-lease request whose
   * claim is taken over is marked "taken-over" and wakes once the request that took it over is
   * handled: the worst moment for it, with the new holder's work done and stored.
   */
  claimed(requestNo: number, key: string, takenOver: boolean): void {
    const holder = takenOver ? this.#holders.get(key) : undefined;
    this.#holders.set(key, requestNo);
    this.#keyOf.set(requestNo, key);
    if (
      holder === undefined ||
      holder === requestNo ||
      this.faultFor(holder) !== "pause-past-lease"
    )
      return;
    this.mark(holder, "taken-over");
    void this.reached(requestNo, "handled").then(() =>
      this.#releases.fire(String(holder), "taken-over"),
    );
  }

  /** The server waits here, in a held request, until it is let go; says how it was. */
  hold(requestNo: number): Promise<Wake> {
    this.mark(requestNo, "held");
    return this.#releases.when(String(requestNo));
  }
}
