/**
 * The key sweeper: an expired key is forgotten by the decision at once (lib/protocol/key-decision.ts),
 * and deleted here, off the request path: a timer, small transactions, and a turn of the event loop
 * for the requests between two of them.
 */
import type { TrackerDatabase } from "./database.ts";

/** What one sweep of expired keys did. */
export interface Swept {
  deleted: number;
  batches: number;
}

export interface KeySweeperOptions {
  /** The service's clock, ms. */
  now: () => number;
  /** How many expired keys one transaction deletes at most (at least 1). */
  batch: number;
  /** How often a sweep runs by itself, ms; 0: never. */
  everyMs: number;
  /** Hears each sweep that deleted something. */
  onSweep?: (swept: Swept) => void;
}

export interface KeySweeper {
  /** Sweeps now: transactions of at most `batch` keys until one deletes fewer. A call while one runs gets that one. */
  sweep(): Promise<Swept>;
  /** Sweeps no more (a running sweep ends after its transaction); resolves once it has ended. */
  stop(): Promise<void>;
}

export function startKeySweeper(
  db: Pick<TrackerDatabase, "deleteExpired">,
  options: KeySweeperOptions,
): KeySweeper {
  const batch = Math.max(1, options.batch);
  let stopped = false;
  let sweeping: Promise<Swept> | undefined;
  const sweepOnce = async (): Promise<Swept> => {
    const swept: Swept = { deleted: 0, batches: 0 };
    while (!stopped) {
      const n = await db.deleteExpired(options.now(), batch);
      swept.deleted += n;
      swept.batches++;
      if (n < batch) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (swept.deleted > 0) options.onSweep?.(swept);
    return swept;
  };
  const sweep = (): Promise<Swept> => {
    sweeping ??= sweepOnce().finally(() => (sweeping = undefined));
    return sweeping;
  };
  const timer =
    options.everyMs > 0
      ? setInterval(() => void sweep().catch(() => {}), options.everyMs).unref()
      : undefined;
  return {
    sweep,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await sweeping?.catch(() => {});
    },
  };
}
