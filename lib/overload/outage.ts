/**
 * An outage played in rounds, to watch what retries do to a server that is trying to come back.
 *
 * The backend is a toy model of a metastable failure. It can take `capacity` requests in a round.
 * While the outage's cause is present (the lesson decides when it goes) it fails everything with
 * 503. Once the cause is fixed it serves a round only if the round before brought no more than its
 * capacity: a swamped server is still busy with the backlog, so it stays down as long as its clients
 * keep it swamped. Rounds, not clocks: the lesson ends each round after all its calls have finished,
 * so the counts never depend on timing.
 */

import { standardCall } from "../client/standard-retry.ts";
import type { RetryQuota } from "../client/token-bucket.ts";
import { t } from "../core/i18n.ts";
import type { Random } from "../core/random.ts";
import { type CountingServer, startCountingServer } from "./counting-server.ts";

export interface RoundStats {
  /** 1 for the first round. */
  round: number;
  /** Whether the outage's cause was still present in this round. */
  causePresent: boolean;
  /** Whether the backend served this round. */
  served: boolean;
  /** Requests that arrived at the backend in this round (counted there). */
  arrivals: number;
  /** Logical calls that ended in success. */
  callsOk: number;
  calls: number;
  /** Tokens in the client's retry quota at the end of the round, if it has one. */
  tokensLeft?: number;
}

export interface OverloadedBackend {
  readonly url: string;
  /** Requests received in all rounds so far. */
  readonly count: number;
  /** Whether the current round is being served. */
  readonly serving: boolean;
  /** The outage's cause goes away; call it between rounds. */
  fixCause(): void;
  /** Closes the current round: how many arrived in it, and whether the next one is served. */
  endRound(): { arrivals: number; served: boolean };
  close(): Promise<void>;
}

/** Starts the backend: the outage's cause is present until `fixCause()`. */
export async function startOverloadedBackend(capacity: number): Promise<OverloadedBackend> {
  let causePresent = true;
  let serving = false;
  let roundStart = 0;
  let lastArrivals = 0;
  const server: CountingServer = await startCountingServer(() =>
    serving ? { status: 201, body: { ok: true } } : { status: 503, body: { error: "overloaded" } },
  );
  const decide = (): void => {
    serving = !causePresent && lastArrivals <= capacity;
  };
  return {
    url: server.url,
    get count() {
      return server.count;
    },
    get serving() {
      return serving;
    },
    fixCause() {
      causePresent = false;
      decide();
    },
    endRound() {
      const served = serving;
      lastArrivals = server.count - roundStart;
      roundStart = server.count;
      decide();
      return { arrivals: lastArrivals, served };
    },
    close: () => server.close(),
  };
}

export interface OutageOptions {
  /** Requests the backend can take in a round. */
  capacity: number;
  /** Logical calls the clients start together in every round. */
  callsPerRound: number;
  /** Rounds while the cause is present, then rounds after it is fixed. */
  outageRounds: number;
  afterRounds: number;
  /** The clients' shared retry budget, or none. */
  quota?: RetryQuota;
  random: Random;
  timeScale: number;
}

/** Plays the outage and the rounds after it; every count is taken at the backend. */
export async function playOutage(options: OutageOptions): Promise<RoundStats[]> {
  const backend = await startOverloadedBackend(options.capacity);
  const rounds: RoundStats[] = [];
  try {
    for (let round = 1; round <= options.outageRounds + options.afterRounds; round++) {
      const causePresent = round <= options.outageRounds;
      // The cause goes away between rounds; the backend serves again only if the last round was light.
      if (round === options.outageRounds + 1) backend.fixCause();
      const calls = await Promise.all(
        Array.from({ length: options.callsPerRound }, () =>
          standardCall({
            url: `${backend.url}/work`,
            body: { round },
            timeoutMs: 5_000,
            random: options.random,
            timeScale: options.timeScale,
            ...(options.quota ? { quota: options.quota } : {}),
          }),
        ),
      );
      const { arrivals, served } = backend.endRound();
      rounds.push({
        round,
        causePresent,
        served,
        arrivals,
        callsOk: calls.filter((c) => c.ok).length,
        calls: calls.length,
        ...(options.quota ? { tokensLeft: options.quota.tokens } : {}),
      });
    }
  } finally {
    await backend.close();
  }
  return rounds;
}

/** Requests that reached the backend over `rounds`. */
export function totalArrivals(rounds: readonly RoundStats[]): number {
  return rounds.reduce((a, r) => a + r.arrivals, 0);
}

/** Two plays of one outage, round by round: without a budget, then with one (and its tokens). */
export function outageRoundsTable(
  noBudget: readonly RoundStats[],
  budget: readonly RoundStats[],
): { header: string[]; rows: string[][] } {
  const yes = (served: boolean): string => (served ? t("yes") : t("no"));
  return {
    header: [
      t("round"),
      t("cause"),
      t("no budget: requests"),
      t("served?"),
      t("budget: requests"),
      t("served?"),
      t("tokens left"),
    ],
    rows: noBudget.map((r, i) => {
      const b = budget[i]!;
      return [
        String(r.round),
        r.causePresent ? t("present") : t("fixed"),
        String(r.arrivals),
        yes(r.served),
        String(b.arrivals),
        yes(b.served),
        String(b.tokensLeft ?? "–"),
      ];
    }),
  };
}

/** The two plays summed: requests during the outage and after the fix, and the calls that worked after it. */
export function outageTotalsTable(
  noBudget: readonly RoundStats[],
  budget: readonly RoundStats[],
): { header: string[]; rows: string[][] } {
  const during = (rounds: readonly RoundStats[]) => rounds.filter((r) => r.causePresent);
  const after = (rounds: readonly RoundStats[]) => rounds.filter((r) => !r.causePresent);
  const rate = (rounds: readonly RoundStats[]): string => {
    const ok = after(rounds).reduce((a, r) => a + r.callsOk, 0);
    const all = after(rounds).reduce((a, r) => a + r.calls, 0);
    return t("{ok}/{all} ({share} %)", { ok, all, share: Math.round((100 * ok) / all) });
  };
  return {
    header: [t("measured at the backend"), t("without a budget"), t("with the token bucket")],
    rows: [
      [
        t("requests during the outage"),
        String(totalArrivals(during(noBudget))),
        String(totalArrivals(during(budget))),
      ],
      [
        t("requests after the fix"),
        String(totalArrivals(after(noBudget))),
        String(totalArrivals(after(budget))),
      ],
      [t("calls ok after the fix"), rate(noBudget), rate(budget)],
    ],
  };
}
