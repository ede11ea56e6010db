/**
 * The child side of dispatcher.ts: one pass of the outbox dispatcher over a SQLite file,
 * every step told to the parent on fd 3, and, when asked, SIGKILL at the point between "the notifier
 * accepted the row" and "the row is marked sent". Not meant to be run by hand.
 */
import { tellParent } from "../core/child-pipe.ts";
import { t } from "../core/i18n.ts";
import { ReportStore } from "../tracker/store.ts";
import type { DispatcherConfig, FromDispatcher } from "./dispatcher-messages.ts";
import { dispatchPending } from "./outbox.ts";

const tell = (message: FromDispatcher): void => tellParent(message);

// The parent is gone (its IPC channel closed, even if it was killed): do not outlive it.
process.on("disconnect", () => process.exit(0));

const config = JSON.parse(process.argv[2] ?? "{}") as DispatcherConfig;
try {
  const store = new ReportStore(config.db);
  const result = await dispatchPending({
    store,
    notifierUrl: config.notifierUrl,
    withKey: config.withKey,
    say: (text, mark) => tell({ type: "say", text, ...(mark ? { mark } : {}) }),
    afterAccepted: (row) => {
      if (!config.killAfterAccepted) return;
      tell({
        type: "say",
        text: t(
          "dispatcher killed (SIGKILL) after the notifier accepted row {id}, before marking it sent",
          { id: String(row.id) },
        ),
        mark: "bad",
      });
      process.kill(process.pid, "SIGKILL");
    },
  });
  store.close();
  tell({ type: "done", ...result });
  process.exit(0);
} catch (err) {
  tell({ type: "failed", message: err instanceof Error ? err.message : String(err) });
  process.exit(1);
}
