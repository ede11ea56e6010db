/**
 * The conversation between a model and its harness, in the shape of the Anthropic Messages API: the
 * assistant asks for tools with `tool_use` blocks (each with its own id), the harness answers each
 * with a `tool_result` block naming that id, with `is_error` when the call did not succeed. Only the
 * fields the lessons use are here.
 */

/** What the model sends to file a report (the harness adds the evaluation run). */
export interface ReportInput {
  title: string;
  body: string;
  module: string;
}

export interface FindInput {
  title: string;
}

export type ToolUse =
  | { type: "tool_use"; id: string; name: "file_bug_report"; input: ReportInput }
  | { type: "tool_use"; id: string; name: "find_reports"; input: FindInput };

export interface ToolResult {
  type: "tool_result";
  tool_use_id: string;
  content: string;
  is_error: boolean;
}

export interface TextBlock {
  type: "text";
  text: string;
}

export type Message =
  | { role: "user"; content: Array<TextBlock | ToolResult> }
  | { role: "assistant"; content: Array<TextBlock | ToolUse> };

export type AssistantMessage = Extract<Message, { role: "assistant" }>;

/** The tool_use blocks of an assistant message. */
export function toolUsesOf(message: Message): ToolUse[] {
  return message.role === "assistant"
    ? message.content.filter((b): b is ToolUse => b.type === "tool_use")
    : [];
}

/** The text of a message's text blocks, joined. */
export function textOf(message: Message): string {
  return message.content
    .filter((b): b is TextBlock => b.type === "text")
    .map((b) => b.text)
    .join(" ");
}

/** A tool_use id in the API's form, `toolu_` and 24 base-62 characters, drawn from `random`. */
export function toolUseId(random: () => number): string {
  const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  let id = "toolu_01";
  for (let i = 0; i < 22; i++) id += alphabet[Math.floor(random() * alphabet.length)];
  return id;
}
