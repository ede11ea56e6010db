/**
 * A business key: an idempotency key derived from what the operation is about, not from the call
 * that carries it. A tool_use id names one call; when the model "submits again" it makes a new call
 * with a new id, and a key built from the id misses. The same evaluation run, the same module and
 * the same title (normalised) name the same report, whichever call carries it.
 *
 * The title is normalised by the tracker's own `normalizeTitle` (store.ts: NFKC, lower case,
 * punctuation and white space folded), the one `GET /reports?title=` uses, so "the key matches" and
 * "the lookup finds it" mean the same thing. The module is normalised the same way (the model writes
 * it too); the run is the harness's own id and is taken as it is.
 *
 * The three parts are hashed, for two reasons: an Idempotency-Key must be printable ASCII of at most
 * 255 characters (lesson 04), and a title may be any length in any script; and joining the parts with
 * a separator would let ("a:b", "c") and ("a", "b:c") collide, while hashing their JSON array cannot.
 */
import { createHash } from "node:crypto";
import { t } from "../core/i18n.ts";
import { normalizeTitle } from "../tracker/store.ts";

export { normalizeTitle };

/** `report-` and the first 32 hex digits (128 bits) of sha256 over [run, module, title], normalised. */
export function businessKey(run: string, module: string, title: string): string {
  const parts = JSON.stringify([run, normalizeTitle(module), normalizeTitle(title)]);
  return `report-${createHash("sha256").update(parts).digest("hex").slice(0, 32)}`;
}

/** The key a harness derives from one tool call: `run_id:tool_use_id`. */
export function toolUseKey(run: string, toolUseId: string): string {
  return `${run}:${toolUseId}`;
}

/** How titles normalise, and the business key each gives in `run` and `module`. */
export function businessKeyTable(
  run: string,
  module: string,
  titles: readonly string[],
): [string[], string[][]] {
  return [
    [
      t("title as the model wrote it"),
      t("normalised"),
      `businessKey("${run}", "${module}", title)`,
    ],
    titles.map((t) => [
      JSON.stringify(t),
      normalizeTitle(t),
      `${businessKey(run, module, t).slice(0, 20)}…`,
    ]),
  ];
}
