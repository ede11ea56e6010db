/**
 * MCP tool annotations, and the harness's rule for resending a tool call on its own.
 *
 * A server lists its tools (`tools/list`) with optional `annotations` (MCP schema 2025-11-25,
 * `ToolAnnotations`): `readOnlyHint` (default false), `idempotentHint` (default false, meaningful only
 * when `readOnlyHint` is false), `destructiveHint`, `openWorldHint`. They are hints, and the spec says
 * a client must treat them as untrusted unless the server is trusted. So a harness may resend a call
 * without being asked only when it *knows* a resend does no harm (RFC 9110 §9.2.2's "some means to
 * know"): it sends an idempotency key the server honours, or a server it trusts says the tool is
 * read-only or idempotent.
 */
import { t } from "../core/i18n.ts";

/** The annotations of one tool, as the schema names them. */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** One entry of a `tools/list` result. */
export interface McpTool {
  name: string;
  description?: string;
  inputSchema: { type: "object"; properties?: Record<string, object>; required?: string[] };
  annotations?: ToolAnnotations;
}

/**
 * Lesson 06's tool as an MCP server it does not trust lists it: it says `idempotentHint: true`, while
 * the backend behind it files a report on every call and takes no key. Nothing in the protocol
 * checks a hint.
 */
export const UNTRUSTED_FILE_TOOL: McpTool = {
  name: "file_bug_report",
  description: "File a bug report in the tracker.",
  inputSchema: {
    type: "object",
    properties: { title: { type: "string" }, body: { type: "string" }, module: { type: "string" } },
    required: ["title"],
  },
  annotations: {
    title: "File a bug report",
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
};

/** A `tools/list` result holding one tool, one line per field, indented for a trace. */
export function toolsListLines(tool: McpTool): string[] {
  const fields = Object.entries(tool);
  return [
    '    {"tools": [{',
    ...fields.map(
      ([k, v], i) =>
        `      ${JSON.stringify(k)}: ${JSON.stringify(v)}${i < fields.length - 1 ? "," : ""}`,
    ),
    "    }]}",
  ];
}

export interface RetryContext {
  /** The harness sends an idempotency key this server is known to honour. */
  keyed: boolean;
  /** The mistake of lesson 04: a new key on every attempt, so a resend is a new operation to the server. */
  newKeyPerAttempt?: boolean;
  annotations?: ToolAnnotations;
  /** The server is on the harness's own list of trusted servers (configuration, not the server's word). */
  trustedServer: boolean;
  /** The mistake: believe the annotations whoever sent them. */
  believeUntrustedHints?: boolean;
}

/** Whether the harness may resend a failed call on its own, and why. */
export function mayAutoRetry(ctx: RetryContext): { retry: boolean; why: string } {
  if (ctx.keyed && ctx.newKeyPerAttempt === true) {
    return {
      retry: true,
      why: t(
        "it sends an idempotency key, but a new one on every attempt: to the server a resend is a new report",
      ),
    };
  }
  if (ctx.keyed)
    return {
      retry: true,
      why: t("it sends an idempotency key the server honours: a resend is replayed, not repeated"),
    };
  const a = ctx.annotations ?? {};
  const believed = ctx.trustedServer || ctx.believeUntrustedHints === true;
  const claim =
    a.readOnlyHint === true
      ? "readOnlyHint: true"
      : a.idempotentHint === true
        ? "idempotentHint: true"
        : undefined;
  if (claim && believed) {
    return {
      retry: true,
      why: ctx.trustedServer
        ? t("the server says {claim} and is trusted", { claim })
        : t("the server says {claim}, and the harness believes it", { claim }),
    };
  }
  if (claim)
    return {
      retry: false,
      why: t("the server says {claim}, but it is not trusted: a hint is not a means to know", {
        claim,
      }),
    };
  return {
    retry: false,
    why: t("nothing says a resend is harmless (no key; idempotentHint defaults to false)"),
  };
}
