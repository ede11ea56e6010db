/**
 * How many operations the chaos run's agents have in flight at once. Each agent has one at least (the
 * pace of an agent filing its operations one after another) and `inFlight` at most; between the two,
 * the pace follows how fast the system answers, as a client library's concurrency limit does:
 *
 * - an answer within a quarter of the attempt timeout raises the limit a little (additive);
 * - an answer slower than half of it, or a timeout, cuts the limit by a fifth (multiplicative), at
 *   most once per attempt timeout, so that one slow spell cuts it once.
 *
 * Only the attempts of operations the plan leaves alone are heard: a struck one times out by design.
 * Without it, a loaded machine answers late, the waiting in line becomes timeouts, every timeout a
 * retry, and the retries load the machine further; with it, a run slows down instead of piling up.
 * Nothing of the plan depends on the pace: each operation's faults are tied to its own requests.
 */
export interface PaceOptions {
  /** The fewest operations in flight the pace lets itself fall to (one per agent). */
  least: number;
  /** The most (`inFlight` per agent). */
  most: number;
  /** The attempt timeout, ms: what "fast" and "slow" are measured against. */
  timeoutMs: number;
  /** The limit to start from (default `least`: a machine that cannot keep up is not flooded first). */
  from?: number;
}

/** Added to the limit per fast answer. */
const STEP = 0.1;
/** The limit is multiplied by this on a slow answer or a timeout. */
const CUT = 0.8;

export class Pace {
  readonly #least: number;
  readonly #most: number;
  readonly #timeoutMs: number;
  #limit: number;
  #active = 0;
  /** How many each agent has in flight. */
  readonly #mine: number[] = [];
  #lastCut = -Infinity;
  #waiting: Array<() => void> = [];
  // For the mean number in flight: its integral over time, since the first `enter`.
  #since: number | undefined;
  #area = 0;
  #at = 0;

  constructor(options: PaceOptions) {
    this.#least = Math.max(1, options.least);
    this.#most = Math.max(this.#least, options.most);
    this.#timeoutMs = options.timeoutMs;
    this.#limit = Math.min(this.#most, Math.max(this.#least, options.from ?? this.#least));
  }

  /** The limit now: a whole number of operations, from `least` to `most`. */
  get limit(): number {
    return Math.floor(this.#limit + 1e-9); // tenths added up are not exact
  }

  get active(): number {
    return this.#active;
  }

  /**
   * Resolves when agent `agent` (0, 1, …) may start one more operation, counted from then on. An agent
   * with nothing in flight may always start one: the pace never falls below one per agent.
   */
  async enter(agent: number, now: () => number): Promise<void> {
    while ((this.#mine[agent] ?? 0) > 0 && this.#active >= this.limit)
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    // Counted in the turn it looked in: no other start comes between.
    this.#count(now());
    this.#active += 1;
    this.#mine[agent] = (this.#mine[agent] ?? 0) + 1;
  }

  /** An operation of agent `agent` is over (answered, left to settle, or never begun). */
  leave(agent: number, now: number): void {
    this.#count(now);
    this.#active -= 1;
    this.#mine[agent]! -= 1;
    this.#wake();
  }

  /**
   * An attempt of an operation the plan leaves alone ended at `now`: answered after `ms`, or timed
   * out (undefined). Network errors (a killed process) say nothing of the pace and are not heard.
   */
  heard(ms: number | undefined, now: number): void {
    if (ms !== undefined && ms <= this.#timeoutMs / 4) {
      this.#limit = Math.min(this.#most, this.#limit + STEP);
      this.#wake();
      return;
    }
    if (ms !== undefined && ms <= this.#timeoutMs / 2) return;
    if (now - this.#lastCut < this.#timeoutMs) return;
    this.#lastCut = now;
    this.#limit = Math.max(this.#least, this.#limit * CUT);
  }

  /** How many operations were in flight on average, from the first start to `now`. */
  mean(now: number): number {
    if (this.#since === undefined || now <= this.#since) return this.#active;
    this.#count(now);
    return this.#area / (now - this.#since);
  }

  /** Adds the time since the last change, at the number in flight during it. */
  #count(now: number): void {
    if (this.#since === undefined) {
      this.#since = now;
      this.#at = now;
    }
    if (now <= this.#at) return;
    this.#area += this.#active * (now - this.#at);
    this.#at = now;
  }

  #wake(): void {
    // Everyone waiting looks again; those for whom there is room go on, the others wait again.
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const w of waiting) w();
  }
}
