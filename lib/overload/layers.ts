/**
 * A stack of services, each a real `node:http` server on 127.0.0.1 that serves a request by calling
 * the next one down, with its own retry loop, until the last calls a "database" that answers by a
 * rule (in lesson 03: 503, it is overloaded). Every hop counts what it receives, so the multiplication
 * of retries across layers is read from the servers' counters.
 *
 * A layer retries at once (no backoff) on anything but a 2xx: the database's worst case. Backoff
 * changes when the retries arrive, not how many.
 */
import { httpCall, type Outcome } from "../client/client.ts";
import { statusText } from "../client/narrate.ts";
import { retryLoop } from "../client/retry-loop.ts";
import { t } from "../core/i18n.ts";
import { type CountingServer, type Reply, startCountingServer } from "./counting-server.ts";

export interface Hop {
  /** "layer 1" … "layer N", or "database". */
  name: string;
  /** Requests this hop received, counted by its server. */
  readonly received: number;
}

export interface LayerStack {
  /** The top layer's URL: where the user's call goes. */
  readonly url: string;
  /** Top layer first, database last. */
  readonly hops: readonly Hop[];
  close(): Promise<void>;
}

export interface LayerStackOptions {
  /** Tries (attempts, first included) of each layer, top first: [3, 3, 3, 3, 3] is five layers of 3. */
  triesPerLayer: readonly number[];
  /** How the database answers (default: 503, overloaded). */
  database?: (n: number) => Reply;
  /** How long a layer waits for the layer below (default 10 s; nothing here should time out). */
  timeoutMs?: number;
}

/** What a layer answers when every try failed: the last answer's status, or 502 for no answer. */
function passUp(o: Outcome): Reply {
  return o.kind === "response"
    ? { status: o.status, body: o.body }
    : { status: 502, body: { error: o.kind } };
}

/** Starts the database and the layers above it, bottom up; resolves once all listen. */
export async function startLayerStack(options: LayerStackOptions): Promise<LayerStack> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const database = options.database ?? (() => ({ status: 503, body: { error: "overloaded" } }));
  const servers: CountingServer[] = [await startCountingServer((r) => database(r.n))];
  const names = ["database"];
  try {
    for (let i = options.triesPerLayer.length - 1; i >= 0; i--) {
      const tries = options.triesPerLayer[i]!;
      const below = servers[0]!.url;
      const layer = await startCountingServer(async () => {
        const { final } = await retryLoop<Outcome>({
          attempt: () => httpCall({ method: "POST", url: below, body: {}, timeoutMs }),
          decide: (o, n) =>
            o.kind === "response" && o.status < 300
              ? { retry: false, why: t("success") }
              : n < tries
                ? { retry: true, delayMs: 0, why: t("failed: try again at once") }
                : { retry: false, why: t("tries used up ({max})", { max: tries }) },
        });
        return passUp(final);
      });
      servers.unshift(layer);
      names.unshift(`layer ${i + 1}`);
    }
  } catch (err) {
    await Promise.all(servers.map((s) => s.close()));
    throw err;
  }
  return {
    url: servers[0]!.url,
    hops: servers.map((s, i) => ({
      name: names[i]!,
      get received() {
        return s.count;
      },
    })),
    // Top first, so no layer is left waiting on a closed one below.
    close: async () => {
      for (const s of servers) await s.close();
    },
  };
}

/**
 * One user call down a fresh stack of `triesPerLayer` layers in front of an overloaded database:
 * what came back to the caller, and what each hop received (top layer first, database last).
 */
export async function oneCallThrough(
  triesPerLayer: readonly number[],
): Promise<{ outcome: Outcome; received: number[] }> {
  const stack = await startLayerStack({ triesPerLayer });
  try {
    const outcome = await httpCall({ method: "POST", url: stack.url, body: {}, timeoutMs: 30_000 });
    return { outcome, received: stack.hops.map((h) => h.received) };
  } finally {
    await stack.close();
  }
}

/** The caller's side of `oneCallThrough`: "one call to layer 1 (tries per layer: 3, 3, 3) ← 503". */
export function oneCallText(triesPerLayer: readonly number[], outcome: Outcome): string {
  return t("one call to layer 1 (tries per layer: {tries}) ← {status}", {
    tries: triesPerLayer.join(", "),
    status: statusText(outcome),
  });
}
