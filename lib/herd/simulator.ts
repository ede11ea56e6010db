/**
 * The thundering-herd simulator: a port of the model behind the AWS Architecture Blog post
 * "Exponential Backoff And Jitter" (Marc Brooker, 2015; aws-samples/aws-arch-backoff-simulator),
 * plus the course's sixth strategy, "Codex amplitude" (`codex-capped`), and a seed.
 *
 * The model: N clients each want one successful write to a single row with a version number. A
 * client reads the version, then writes carrying the version it read; the write succeeds only if
 * nobody else's write landed in between. On failure the client backs off and starts again with a
 * read. Every network hop takes |Normal(10, 2)| ms; the server itself takes no time.
 *
 * "Calls" (the blog's "work") counts write attempts only. "Completion" is the time of the last event
 * of a run, i.e. when the last client's success reply arrives.
 *
 * Two implementations of the same model, both discrete-event loops over a min-heap of times:
 * - `simulateOnceLiteral` follows the model message by message (read, reply, write, reply), to read
 *   beside the description and to test against;
 * - `simulateOnce` puts only the writes through the queue (the reason this is exact is given there)
 *   and is what the sweeps use: the blog's full sweep is about 17 million write calls.
 * Each client has one message in flight at any moment, so the heap never holds more than N entries.
 */

import {
  type BackoffParams,
  codexCappedMs,
  decorrelatedJitterMs,
  equalJitterMs,
  exponentialMs,
  fullJitterMs,
  HERD_PARAMS,
  makeBackoff,
  type StrategyName,
} from "../client/backoff.ts";
import { normal, type Random, seeded } from "../core/random.ts";
import { MinHeap } from "./heap.ts";

/** The strategies the simulator runs: the AWS four, no backoff, and Codex's jitter on the same cap. */
export type HerdStrategy = Extract<
  StrategyName,
  "no-backoff" | "exponential" | "full" | "equal" | "decorrelated" | "codex-capped"
>;

export const HERD_STRATEGIES: readonly HerdStrategy[] = [
  "no-backoff",
  "exponential",
  "full",
  "equal",
  "decorrelated",
  "codex-capped",
];

export function isHerdStrategy(name: string): name is HerdStrategy {
  return (HERD_STRATEGIES as readonly string[]).includes(name);
}

/** One-way network latency: |Normal(mean, sd)| ms, hard-wired in the original. */
export const LATENCY_MEAN_MS = 10;
export const LATENCY_SD_MS = 2;

/** The network's one-way latency, |Normal(meanMs, sdMs)| ms a hop. */
export interface LatencyParams {
  meanMs: number;
  sdMs: number;
}

/** The original's latency: |Normal(10, 2)| ms. */
export const HERD_LATENCY: Readonly<LatencyParams> = Object.freeze({
  meanMs: LATENCY_MEAN_MS,
  sdMs: LATENCY_SD_MS,
});

export interface RunResult {
  /** Write attempts (reads are not counted). */
  calls: number;
  /** Writes that found the version changed since the client's read. calls - failures = clients. */
  failures: number;
  /** Time of the last event, ms. */
  completionMs: number;
  /** When each write reached the server, in order, if asked for. */
  writeTimesMs?: number[];
  /** Messages delivered (reads, read replies, writes, write replies): the literal loop only. */
  messages?: number;
}

export interface SimulateOptions {
  /** Record the arrival time of every write (for histograms). Default false. */
  recordWriteTimes?: boolean;
  /** Base and cap of the backoff. Default 5 ms and 2000 ms, as in the original. */
  params?: BackoffParams;
  /** One-way latency. Default |Normal(10, 2)| ms, as in the original. */
  latency?: LatencyParams;
}

// Strategy codes for the switch in the inner loop.
const NO_BACKOFF = 0;
const EXPONENTIAL = 1;
const FULL = 2;
const EQUAL = 3;
const DECORRELATED = 4;
const CODEX_CAPPED = 5;

function strategyCode(strategy: HerdStrategy): number {
  switch (strategy) {
    case "no-backoff":
      return NO_BACKOFF;
    case "exponential":
      return EXPONENTIAL;
    case "full":
      return FULL;
    case "equal":
      return EQUAL;
    case "decorrelated":
      return DECORRELATED;
    case "codex-capped":
      return CODEX_CAPPED;
  }
}

/*
 * Two hops back to back (a reply, then the next message straight out) as one draw: the sum of two
 * independent Normal(10, 2) is Normal(20, 2·√2). The original takes |x| of each hop separately; a hop
 * is negative only with probability 3 in 10 million (5 sd below the mean), so that makes no
 * measurable difference, and it halves the normal draws, the simulator's main cost. (With another
 * latency, Normal(m, s): two hops are Normal(2m, s·√2); the same holds while s is well below m.)
 */

/** 2^26: one 53-bit draw holds two independent uniforms, its high 26 bits and its low 27 bits. */
const TWO_POW_26 = 67108864;

/** Normals made at a time, in one tight loop (a little faster than one at a time). */
const BATCH = 128;

/**
 * Network delays from a `Random`. Standard normals come from the Marsaglia polar method (no
 * trigonometry; each accepted pair gives two normals), with each candidate pair cut from one draw, so
 * a normal costs about 0.64 draws; they are made in batches. Assumes a source with about 53 bits,
 * like `seeded()` (or `Math.random`). So the draws do not come in the original's order (delays and
 * backoffs interleave differently); every draw is still independent, which is all the model needs.
 */
class Latency {
  #random: Random;
  #normals = new Float64Array(BATCH);
  #next = BATCH;
  #mean: number;
  #sd: number;
  #twoMean: number;
  #twoSd: number;

  constructor(random: Random, { meanMs, sdMs }: LatencyParams = HERD_LATENCY) {
    this.#random = random;
    this.#mean = meanMs;
    this.#sd = sdMs;
    this.#twoMean = 2 * meanMs;
    this.#twoSd = Math.SQRT2 * sdMs;
  }

  /** One hop: |Normal(10, 2)| ms by default. */
  hop(): number {
    return Math.abs(this.#mean + this.#sd * this.#normal());
  }

  /** Two hops back to back: |Normal(20, 2·√2)| ms by default. */
  twoHops(): number {
    return Math.abs(this.#twoMean + this.#twoSd * this.#normal());
  }

  #normal(): number {
    if (this.#next === BATCH) this.#refill();
    return this.#normals[this.#next++]!;
  }

  #refill(): void {
    const normals = this.#normals;
    const random = this.#random;
    for (let i = 0; i < BATCH; ) {
      const w = random() * TWO_POW_26;
      const high = Math.floor(w);
      const x = high / (TWO_POW_26 / 2) - 1; // [-1, 1)
      const y = 2 * (w - high) - 1; // [-1, 1)
      const q = x * x + y * y;
      if (q >= 1 || q === 0) continue; // outside the unit circle: draw again
      const f = Math.sqrt((-2 * Math.log(q)) / q);
      normals[i++] = x * f;
      normals[i++] = y * f;
    }
    this.#next = 0;
  }
}

/**
 * One run: `clients` clients start at t = 0 against a fresh row; returns the calls, failures and
 * completion time.
 *
 * This is the model of `simulateOnceLiteral` (below) rewritten so that only writes go through the
 * event queue. That is exact, not an approximation, because nothing but a write can change the row:
 * - A client's read reaching the server at `readAt` sees version v; its write, processed later in
 *   time order, finds the version still v exactly when no write has succeeded since `readAt`. So
 *   the simulator keeps the time of the last successful write instead of the version.
 * - Everything a client does between its failed write and its next write (the reply, the backoff,
 *   the read, its reply) touches no shared state, so that write's arrival can be scheduled at once.
 * - Completion, the time of the last message, is the latest success reply.
 * One event per call instead of four, and fewer draws (see `Latency`), make it several times faster
 * than the literal loop; the tests check that the two agree.
 */
export function simulateOnce(
  strategy: HerdStrategy,
  clients: number,
  random: Random,
  options: SimulateOptions = {},
): RunResult {
  checkClients(clients);
  return run(
    strategyCode(strategy),
    clients,
    random,
    new Latency(random, options.latency),
    options,
  );
}

/** `simulateOnce`'s loop; `simulatePoint` passes one `Latency` through all its runs. */
function run(
  code: number,
  clients: number,
  random: Random,
  latency: Latency,
  options: SimulateOptions,
): RunResult {
  const params = options.params ?? HERD_PARAMS;
  const writeTimes: number[] | null = options.recordWriteTimes === true ? [] : null;

  const readAtMs = new Float64Array(clients); // when each client's latest read reached the server
  const attempts = new Int32Array(clients); // failures so far, per client
  const prevSleepMs = new Float64Array(clients).fill(params.baseMs); // decorrelated jitter's state
  const writes = new MinHeap(clients); // (arrival time of the client's next write, client)

  for (let c = 0; c < clients; c++) {
    const readAt = latency.hop(); // every client sends a read at t = 0
    readAtMs[c] = readAt;
    writes.push(readAt + latency.twoHops(), c); // the version comes back, the write goes out
  }

  let calls = 0;
  let failures = 0;
  let lastSuccessMs = -Infinity;
  let completionMs = 0;
  let now = 0;

  while (writes.size > 0) {
    const t = writes.peekKey();
    const c = writes.peekValue();
    if (t < now) throw new Error(`time went backwards: ${t} < ${now}`);
    now = t;
    calls++;
    if (writeTimes !== null) writeTimes.push(t);

    if (lastSuccessMs < readAtMs[c]!) {
      // Nobody wrote since this client read: its version is current, the write succeeds.
      lastSuccessMs = t;
      const replyAt = t + latency.hop();
      if (replyAt > completionMs) completionMs = replyAt;
      writes.pop(); // this client is done
      continue;
    }

    // Conflict. The reply goes back and the client sleeps, then reads and writes again.
    failures++;
    const n = ++attempts[c]!;
    const replyAndReadMs = latency.twoHops(); // the failure reply back, then the new read out
    let sleepMs: number;
    switch (code) {
      case NO_BACKOFF:
        sleepMs = 0;
        break;
      case EXPONENTIAL:
        sleepMs = exponentialMs(n, params);
        break;
      case FULL:
        sleepMs = fullJitterMs(n, params, random);
        break;
      case EQUAL:
        sleepMs = equalJitterMs(n, params, random);
        break;
      case DECORRELATED:
        sleepMs = prevSleepMs[c] = decorrelatedJitterMs(prevSleepMs[c]!, params, random);
        break;
      default:
        sleepMs = codexCappedMs(n, params, random);
    }
    const readAt = t + replyAndReadMs + sleepMs;
    readAtMs[c] = readAt;
    writes.replaceTop(readAt + latency.twoHops(), c);
  }

  return finish(clients, calls, failures, completionMs, writeTimes);
}

function checkClients(clients: number): void {
  if (!Number.isSafeInteger(clients) || clients < 1) {
    throw new RangeError(`clients must be a positive integer, got ${clients}`);
  }
}

function finish(
  clients: number,
  calls: number,
  failures: number,
  completionMs: number,
  writeTimes: number[] | null,
): RunResult {
  if (calls - failures !== clients) {
    throw new Error(`expected calls - failures = ${clients}, got ${calls} - ${failures}`);
  }
  const result: RunResult = { calls, failures, completionMs };
  if (writeTimes !== null) result.writeTimesMs = writeTimes;
  return result;
}

// Message kinds of the literal model: what a client's one message in flight is.
const READ_AT_SERVER = 0;
const READ_REPLY = 1;
const WRITE_AT_SERVER = 2;
const WRITE_REPLY = 3;

/**
 * The model exactly as described, message by message: a queue of (delivery time, client * 4 +
 * kind), each message drawing its own |Normal(10, 2)| hop with `normal()` from the random module, in
 * the original's order (one start delay per client; each event its outgoing delay; a failed write's
 * reply the delay first and the backoff second; a success reply nothing). Slower than
 * `simulateOnce`; kept as the reference it is tested against, and to read beside the model.
 */
export function simulateOnceLiteral(
  strategy: HerdStrategy,
  clients: number,
  random: Random,
  options: SimulateOptions = {},
): RunResult {
  checkClients(clients);
  const params = options.params ?? HERD_PARAMS;
  const writeTimes: number[] | null = options.recordWriteTimes === true ? [] : null;
  const { meanMs, sdMs } = options.latency ?? HERD_LATENCY;
  const hop = (): number => Math.abs(normal(random, meanMs, sdMs));

  const seen = new Int32Array(clients); // the version each client last read
  const succeeded = new Uint8Array(clients); // the result of each client's last write
  const backoffs = Array.from({ length: clients }, () => makeBackoff(strategy, params, random));
  const attempts = new Int32Array(clients);
  const queue = new MinHeap(clients);

  for (let c = 0; c < clients; c++) queue.push(hop(), c * 4 + READ_AT_SERVER);

  let version = 0; // the row
  let calls = 0;
  let failures = 0;
  let messages = 0;
  let now = 0;

  while (queue.size > 0) {
    const t = queue.peekKey();
    const message = queue.peekValue();
    if (t < now) throw new Error(`time went backwards: ${t} < ${now}`);
    now = t;
    messages++;
    const c = message >> 2;
    switch (message & 3) {
      case READ_AT_SERVER: // the server answers with the version as it stands now
        seen[c] = version;
        queue.replaceTop(t + hop(), c * 4 + READ_REPLY);
        break;
      case READ_REPLY: // the client writes back the version it saw
        queue.replaceTop(t + hop(), c * 4 + WRITE_AT_SERVER);
        break;
      case WRITE_AT_SERVER: // one call; it succeeds only if the version has not moved
        calls++;
        if (writeTimes !== null) writeTimes.push(t);
        if (seen[c] === version) {
          version++;
          succeeded[c] = 1;
        } else {
          failures++;
          succeeded[c] = 0;
        }
        queue.replaceTop(t + hop(), c * 4 + WRITE_REPLY);
        break;
      default: {
        // WRITE_REPLY: done on success; on failure sleep, then read again
        if (succeeded[c] === 1) {
          queue.pop();
          break;
        }
        const n = ++attempts[c]!;
        const d = hop();
        const sleepMs = backoffs[c]!.nextDelayMs(n);
        queue.replaceTop(t + d + sleepMs, c * 4 + READ_AT_SERVER);
      }
    }
  }

  return { ...finish(clients, calls, failures, now, writeTimes), messages };
}

/** Means over the runs of one (strategy, clients) point. */
export interface PointResult {
  strategy: HerdStrategy;
  clients: number;
  runs: number;
  /** Mean write calls per run. */
  calls: number;
  /** Mean completion time, ms. */
  completionMs: number;
  /** Every write's arrival time over all runs, if asked for. */
  writeTimesMs?: number[];
}

export interface PointSpec {
  strategy: HerdStrategy;
  clients: number;
  runs: number;
  seed: number;
  recordWriteTimes?: boolean;
  params?: BackoffParams;
  latency?: LatencyParams;
}

/**
 * The seed of one point, derived from the top seed, the strategy and the client count only, so a
 * point gives the same numbers whichever other points are run with it. (FNV-1a over the three.)
 */
export function pointSeed(seed: number, strategy: HerdStrategy, clients: number): number {
  let h = 0x811c9dc5;
  for (const ch of `${seed}|${strategy}|${clients}`) {
    h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193) >>> 0;
  }
  return h;
}

/** `runs` independent runs of one point, each with a fresh row and fresh clients. */
export function simulatePoint(spec: PointSpec): PointResult {
  const { strategy, clients, runs, seed } = spec;
  if (!Number.isSafeInteger(runs) || runs < 1)
    throw new RangeError(`runs must be a positive integer, got ${runs}`);
  checkClients(clients);
  const code = strategyCode(strategy);
  const random = seeded(pointSeed(seed, strategy, clients));
  const latency = new Latency(random, spec.latency);
  const options: SimulateOptions = { recordWriteTimes: spec.recordWriteTimes === true };
  if (spec.params !== undefined) options.params = spec.params;
  let calls = 0;
  let completion = 0;
  const writeTimes: number[] = [];
  for (let i = 0; i < runs; i++) {
    const r = run(code, clients, random, latency, options);
    calls += r.calls;
    completion += r.completionMs;
    if (r.writeTimesMs !== undefined) for (const w of r.writeTimesMs) writeTimes.push(w);
  }
  const point: PointResult = {
    strategy,
    clients,
    runs,
    calls: calls / runs,
    completionMs: completion / runs,
  };
  if (spec.recordWriteTimes === true) point.writeTimesMs = writeTimes;
  return point;
}

export interface SweepSpec {
  strategies: readonly HerdStrategy[];
  clients: readonly number[];
  runs: number;
  seed: number;
  params?: BackoffParams;
  latency?: LatencyParams;
}

/** The original's sweep: every strategy at every client count; rows by strategy, then clients. */
export function simulateMany(spec: SweepSpec): PointResult[] {
  const rows: PointResult[] = [];
  for (const strategy of spec.strategies) {
    for (const clients of spec.clients) {
      rows.push(simulatePoint(pointSpec(spec, strategy, clients)));
    }
  }
  return rows;
}

/** The spec of one point of a sweep. */
export function pointSpec(spec: SweepSpec, strategy: HerdStrategy, clients: number): PointSpec {
  const point: PointSpec = { strategy, clients, runs: spec.runs, seed: spec.seed };
  if (spec.params !== undefined) point.params = spec.params;
  if (spec.latency !== undefined) point.latency = spec.latency;
  return point;
}

/** The original's client counts: 10, 20, ..., 190. */
export const ORIGINAL_CLIENTS: readonly number[] = Array.from(
  { length: 19 },
  (_, i) => (i + 1) * 10,
);
