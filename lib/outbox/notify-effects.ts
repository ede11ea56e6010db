/**
 * The three ways lesson 07's tracker tells the maintainer about a new report, as tracker hooks
 * (lib/tracker/side-effects.ts), chosen by a plain config so that a tracker in a child process can be
 * given one too: `notifyPlugin(config)` names this module and the config, and the child loads it
 * (its `sideEffects` export):
 *
 *   inline "before-commit"   the handler calls the notifier, then stores the report
 *   inline "after-commit"    the handler stores the report, then calls the notifier
 *   passKey                  an inline call carries a key derived from the request's own key
 *   outbox                   the handler writes a "to send" row in the report's transaction, and
 *                            the dispatcher (outbox.ts) delivers it later
 */
import { httpCall } from "../client/client.ts";
import { t } from "../core/i18n.ts";
import { shortKey } from "../protocol/key-answers.ts";
import type { SideEffectCall, SideEffects, SideEffectsPlugin } from "../tracker/side-effects.ts";
import { describeDelivery, type NotificationRequest } from "./notifier.ts";
import { notificationFor, outboxOf, subjectFor, TRACKER_CALLER } from "./outbox.ts";

export interface NotifyConfig {
  notifierUrl: string;
  /** Call the notifier from the request handler, before or after the report's commit. */
  inline?: "before-commit" | "after-commit";
  /** Inline calls carry a key derived from the request's Idempotency-Key (when it has one). */
  passKey?: boolean;
  /** Write an outbox row in the report's transaction (the dispatcher delivers it). */
  outbox?: boolean;
}

/** The key passed downstream for a request: its own key, scoped to its caller and to this purpose. */
export function passedKey(call: Pick<SideEffectCall, "key" | "caller">): string | undefined {
  return call.key === undefined ? undefined : `${call.key}/${call.caller}/notify`;
}

export function notifyEffects(config: NotifyConfig): SideEffects {
  const effects: SideEffects = {};
  const send = async (call: SideEffectCall, notification: NotificationRequest): Promise<void> => {
    const key = config.passKey ? passedKey(call) : undefined;
    const headers: Record<string, string> = { authorization: `Bearer ${TRACKER_CALLER}` };
    if (key !== undefined) headers["idempotency-key"] = `"${key}"`;
    call.say(
      key === undefined
        ? t('→ notifier: POST /notifications "{subject}" (no key)', {
            subject: notification.subject,
          })
        : t('→ notifier: POST /notifications "{subject}" (Idempotency-Key {key})', {
            subject: notification.subject,
            key: shortKey(key),
          }),
    );
    const outcome = await httpCall({
      method: "POST",
      url: `${config.notifierUrl}/notifications`,
      body: notification,
      headers,
      timeoutMs: 5_000,
    });
    const accepted = outcome.kind === "response" && outcome.status >= 200 && outcome.status < 300;
    const delivery = describeDelivery(outcome);
    call.say(t("← notifier: {delivery}", { delivery }), accepted ? "ok" : "bad");
    if (!accepted)
      throw new Error(t("the notifier did not accept the notification ({delivery})", { delivery }));
  };
  if (config.inline === "before-commit") {
    // No report id yet: the report does not exist until the commit that follows.
    effects.beforeCommit = (call) => send(call, { subject: subjectFor(call.report.title) });
  }
  if (config.inline === "after-commit")
    effects.afterCommit = (stored, call) => send(call, notificationFor(stored));
  if (config.outbox) {
    effects.inTransaction = (stored, store) => {
      const row = outboxOf(store).add(stored);
      return t(
        "INSERT outbox row {row} 'to_send' (notify about report {report}), in the report's transaction",
        { row: String(row.id), report: String(stored.id) },
      );
    };
  }
  return effects;
}

/** The same hooks for a tracker in a child process: this module, which the child imports, and the config. */
export function notifyPlugin(config: NotifyConfig): SideEffectsPlugin {
  return { module: import.meta.url, config };
}

/** What the child calls (side-effects.ts SideEffectsModule): the hooks for the config notifyPlugin gave. */
export function sideEffects(config: unknown): SideEffects {
  return notifyEffects(config as NotifyConfig);
}
