/**
 * The agent of lesson 06: a scripted model, the harness that runs its tool calls, and their keys.
 * This module is the agent loop: call the model with the conversation, run the tools it asks for
 * through the harness (harness.ts), append the results, call the model again, until it answers
 * without a tool call.
 *
 * A model call can fail too (a "sampling" failure: the stream breaks before it completes), and the
 * loop retries it. What the retry sends is the point:
 *   - `history`, as Codex does (openai/codex `codex-rs/core/src/session/turn.rs`,
 *     `run_sampling_request`): the retry rebuilds its input from the conversation history, where the
 *     tool calls that already ran and their outputs were recorded. The model sees them done.
 *   - `snapshot`: the retry resends the request as it was before the failed call. The tool call that
 *     ran is forgotten, and the model asks for it again, with a new tool_use id.
 * The model call itself touches nothing outside (it costs tokens); the tool call it leads to may.
 *
 * Codex's side, read at openai/codex @ 553376ff, codex-rs/core/src/session/turn.rs:
 * `run_sampling_request` sends the input it was given on the first attempt and, on every retry,
 * rebuilds it from the session's history (`sess.clone_history().await.for_prompt(…)`). In
 * `try_run_sampling_request` a tool call starts as soon as its item is done
 * (`handle_output_item_done` hands back a `tool_future`); when the stream then fails,
 * `drain_in_flight` still awaits the calls in flight and records each output with
 * `record_conversation_items`. The retry logs "stream disconnected - retrying sampling request
 * ({retries}/{max_retries} in {delay:?})..."; `report_error = retries > 1 || cfg!(debug_assertions) ||
 * !responses_websocket_enabled()` decides whether the UI shows "Reconnecting...
 * {retries}/{max_retries}", and a fall-back from WebSocket to HTTPS sets `retries = 0`.
 */
import { t } from "../core/i18n.ts";
import type { Harness } from "./harness.ts";
import { type Message, type ToolResult, textOf, toolUsesOf } from "./messages.ts";
import type { ScriptedModel } from "./scripted-model.ts";

export type SamplingRetry = "history" | "snapshot";

export interface ConversationOptions {
  model: ScriptedModel;
  harness: Harness;
  /** The user's request that starts the conversation. */
  task: string;
  /** Model call `call`'s stream breaks after its tool calls ran, before it completes; it is retried by `retry`. */
  breakStream?: { call: number; retry: SamplingRetry };
  /** A guard against a loop that never ends. Default 12. */
  maxModelCalls?: number;
  log?: (actor: "model" | "network", text: string, mark?: "ok" | "bad" | "warn") => void;
}

export interface ConversationResult {
  history: Message[];
  /** Model calls made, failed ones included. */
  modelCalls: number;
  /** The model's closing text. */
  final: string;
}

export async function runConversation(opts: ConversationOptions): Promise<ConversationResult> {
  const log = opts.log ?? (() => {});
  const max = opts.maxModelCalls ?? 12;
  let history: Message[] = [{ role: "user", content: [{ type: "text", text: opts.task }] }];
  for (let call = 1; call <= max; call++) {
    const request = history.slice();
    const reply = opts.model.respond(request);
    const uses = toolUsesOf(reply);
    history.push(reply);
    if (uses.length === 0) {
      log("model", t('call {call} → "{text}"', { call, text: textOf(reply) }), "ok");
      return { history, modelCalls: call, final: textOf(reply) };
    }
    for (const u of uses) {
      log(
        "model",
        t('call {call} → tool_use {id}… {name} "{title}" ({why})', {
          call,
          id: u.id.slice(0, 14),
          name: u.name,
          title: u.input.title,
          why: opts.model.lastWhy,
        }),
      );
    }
    // Each tool call starts as soon as its block is complete, before the rest of the stream arrives.
    const results: ToolResult[] = [];
    for (const u of uses) results.push(await opts.harness.run(u));
    history.push({ role: "user", content: results });
    if (opts.breakStream?.call === call) {
      log(
        "network",
        t("call {call}: the stream broke before it completed; the loop retries the model call", {
          call,
        }),
        "warn",
      );
      if (opts.breakStream.retry === "snapshot") {
        history = request;
        log(
          "model",
          t(
            "retry from the request as it was sent: the tool call that ran and its result are not in it",
          ),
          "warn",
        );
      } else {
        log(
          "model",
          t("retry rebuilt from history: the tool call that ran and its result are in it"),
        );
      }
    }
  }
  throw new Error(`the conversation did not end within ${max} model calls`);
}
