/**
 * The child side of postgres-dispatcher.ts: one connection to PostgreSQL, and the steps its parent
 * asks for: take a batch (a transaction locking rows with FOR UPDATE SKIP LOCKED), deliver it and
 * commit, or stop. Asked to, it kills itself with SIGKILL right after the notifier accepted a given
 * row, before marking it sent: its transaction is then rolled back by the server when the connection
 * drops. Not meant to be run by hand.
 */
import pg from "pg";
import { tellParent } from "../core/child-pipe.ts";
import { t } from "../core/i18n.ts";
import type {
  FromPgDispatcher,
  PgDispatcherConfig,
  ToPgDispatcher,
} from "./postgres-dispatcher-messages.ts";
import { deliverBatch, type PgOutboxRow, takeBatch } from "./postgres-outbox.ts";

const tell = (message: FromPgDispatcher): void => tellParent(message);

// The parent is gone (its IPC channel closed, even if it was killed): do not outlive it.
process.on("disconnect", () => process.exit(0));

const config = JSON.parse(process.argv[2] ?? "{}") as PgDispatcherConfig;
const db = new pg.Client({ connectionString: config.url });
let batch: PgOutboxRow[] = [];

/** One step at a time, in the order the parent sent them. */
let queue = Promise.resolve();
process.on("message", (m: ToPgDispatcher) => {
  queue = queue
    .then(() => handle(m))
    .catch((err: unknown) => {
      tell({ type: "failed", message: err instanceof Error ? err.message : String(err) });
      process.exit(1);
    });
});

async function handle(m: ToPgDispatcher): Promise<void> {
  const say = (text: string, mark?: "ok" | "bad" | "warn"): void =>
    tell({ type: "say", text, ...(mark ? { mark } : {}) });
  switch (m.type) {
    case "take": {
      batch = await takeBatch(db, config.batch, config.lock !== false);
      const ids = batch.map((r) => r.id).join(", ");
      if (config.lock === false) {
        say(
          batch.length === 0
            ? t("BEGIN · SELECT (no lock): no row left to send")
            : t("BEGIN · SELECT (no lock): read row(s) {ids}", { ids }),
        );
      } else {
        say(
          batch.length === 0
            ? t("BEGIN · SELECT … FOR UPDATE SKIP LOCKED: no row left to send")
            : t("BEGIN · SELECT … FOR UPDATE SKIP LOCKED: took row(s) {ids}, locked until COMMIT", {
                ids,
              }),
        );
      }
      tell({ type: "taken", rows: batch.map((r) => r.id) });
      return;
    }
    case "deliver": {
      const delivered = await deliverBatch(db, batch, {
        notifierUrl: config.notifierUrl,
        say,
        afterAccepted: (row) => {
          if (row.id !== m.killAfterAccepted) return;
          say(
            t(
              "dispatcher killed (SIGKILL) after the notifier accepted row {id}, before marking it sent; its transaction is still open",
              { id: String(row.id) },
            ),
            "bad",
          );
          process.kill(process.pid, "SIGKILL");
        },
      });
      say(
        batch.length === 0
          ? t("COMMIT (nothing was taken)")
          : config.lock === false
            ? t("UPDATE outbox SET state = 'sent' for {n} row(s) · COMMIT", { n: delivered })
            : t(
                "UPDATE outbox SET state = 'sent' for {n} row(s) · COMMIT (the locks are released)",
                {
                  n: delivered,
                },
              ),
      );
      batch = [];
      tell({ type: "committed", delivered });
      return;
    }
    case "stop":
      await db.end();
      process.exit(0);
  }
}

try {
  await db.connect();
  const { rows } = await db.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
  tell({ type: "ready", backendPid: rows[0]!.pid });
} catch (err) {
  tell({ type: "failed", message: err instanceof Error ? err.message : String(err) });
  process.exit(1);
}
