/**
 * A scripted stand-in for the model: no model is called. Given the conversation so far, it decides
 * its next message by fixed rules, and the only thing it reads in a tool result is its words and
 * `is_error`, as a model does. A real model is not a set of rules; what it does with "submission
 * failed" is a tendency (file again, often reworded), not a certainty. The rules make the tendency
 * repeatable, so the lesson can count what each wording leads to.
 *
 * The rules, after a `file_bug_report` result:
 *   - not an error → it answers with the report's number and stops;
 *   - an error that says the report "may already exist" or to "look it up first" → it calls
 *     `find_reports` with the title;
 *   - any other error ("submission failed") → it files again, as a new tool_use with a new id, with
 *     `resubmitTitle` if it was given one (a model often rewords), while it has filings left.
 * After a `find_reports` result: a report found → it stops; none found → it files again (the lookup
 * says the first attempt never landed); the lookup failed → it stops and says it could not tell.
 *
 * Tool-use ids come from a seeded random source: the same seed makes the same conversation.
 *
 * The harness speaks the workbook's language, so the rules read the words in English and in
 * Chinese ("may already exist" / "可能已经创建", "look it up first" / "先查一下"), as a model reads
 * either; and the model answers in the same language.
 */
import { t } from "../core/i18n.ts";
import type { Random } from "../core/random.ts";
import {
  type AssistantMessage,
  type FindInput,
  type Message,
  type ReportInput,
  type ToolResult,
  type ToolUse,
  toolUseId,
  toolUsesOf,
} from "./messages.ts";

/** How the scripted model reads a tool result. */
export type Reading = "success" | "look-up" | "failed";

/** The words that send the model to look before filing again. */
const LOOK_FIRST = /may already exist|look it up first|可能已经创建|先查一下/i;
/** A lookup that found the report. */
const FOUND = /^(?:Found \d+ report|找到 \d+ 份)/;

export function readToolResult(result: Pick<ToolResult, "content" | "is_error">): Reading {
  if (!result.is_error) return "success";
  return LOOK_FIRST.test(result.content) ? "look-up" : "failed";
}

export interface ScriptedModelOptions {
  /** Draws the tool_use ids. */
  random: Random;
  /** The report it was asked to file. */
  report: ReportInput;
  /** The title it uses when it files again after a failure. Default: the same title. */
  resubmitTitle?: string;
  /** Calls to file_bug_report at most, the first included. Default 2. */
  maxFilings?: number;
}

export type Decision =
  | { kind: "file"; input: ReportInput; why: string }
  | { kind: "find"; input: FindInput; why: string }
  | { kind: "answer"; text: string; why: string };

/** The model's next move, from the conversation so far. A pure function of the history. */
export function decide(
  history: readonly Message[],
  opts: Omit<ScriptedModelOptions, "random">,
): Decision {
  const uses = history.flatMap(toolUsesOf);
  const filings = uses.filter((u) => u.name === "file_bug_report").length;
  const maxFilings = opts.maxFilings ?? 2;
  const last = history.at(-1);
  const result =
    last?.role === "user"
      ? last.content.filter((b): b is ToolResult => b.type === "tool_result").at(-1)
      : undefined;
  if (!result) return { kind: "file", input: opts.report, why: t("asked to file a report") };
  const use = uses.find((u) => u.id === result.tool_use_id);
  if (!use)
    throw new Error(
      `a tool_result for ${result.tool_use_id}, which no tool_use in the conversation has`,
    );
  const again = (input: ReportInput, why: string): Decision =>
    filings < maxFilings
      ? { kind: "file", input, why }
      : {
          kind: "answer",
          text: t("I could not file the report: {content}", { content: result.content }),
          why: t("no filings left ({max})", { max: maxFilings }),
        };

  if (use.name === "file_bug_report") {
    switch (readToolResult(result)) {
      case "success":
        return {
          kind: "answer",
          text: done(reportNumberIn(result.content)),
          why: t("the tool result says it is filed"),
        };
      case "look-up":
        return {
          kind: "find",
          input: { title: use.input.title },
          why: t("the tool result says it may exist: look first"),
        };
      case "failed":
        return again(
          { ...opts.report, title: opts.resubmitTitle ?? opts.report.title },
          t("the tool result says it failed: submit again"),
        );
    }
  }
  if (result.is_error)
    return {
      kind: "answer",
      text: t("I cannot tell whether the report was filed: {content}", { content: result.content }),
      why: t("the lookup failed"),
    };
  if (FOUND.test(result.content)) {
    const id = reportNumberIn(result.content);
    return {
      kind: "answer",
      text:
        id === undefined
          ? t("The report already exists; I did not file it again.")
          : t("The report already exists (report #{id}); I did not file it again.", {
              id: String(id),
            }),
      why: t("the lookup found it"),
    };
  }
  return again(
    opts.report,
    t("the lookup found nothing, so it concludes the first submission never landed"),
  );
}

export interface ScriptedModel {
  /** One model call: the next assistant message for this history. */
  respond(history: readonly Message[]): AssistantMessage;
  /** The reason for the last decision, for the trace. */
  readonly lastWhy: string;
}

export function scriptedModel(opts: ScriptedModelOptions): ScriptedModel {
  let lastWhy = "";
  return {
    get lastWhy() {
      return lastWhy;
    },
    respond(history) {
      const d = decide(history, opts);
      lastWhy = d.why;
      if (d.kind === "answer")
        return { role: "assistant", content: [{ type: "text", text: d.text }] };
      const id = toolUseId(opts.random);
      const use: ToolUse =
        d.kind === "file"
          ? { type: "tool_use", id, name: "file_bug_report", input: d.input }
          : { type: "tool_use", id, name: "find_reports", input: d.input };
      return { role: "assistant", content: [use] };
    },
  };
}

/** The number of the first report a tool result names ("report #7", "报告 #7"). */
function reportNumberIn(text: string): number | undefined {
  const m = /(?:report|报告) #(\d+)/.exec(text);
  return m ? Number(m[1]) : undefined;
}

/** The model's closing words after a filing. */
function done(id: number | undefined): string {
  return id === undefined ? t("Done: filed.") : t("Done: report #{id}.", { id: String(id) });
}
