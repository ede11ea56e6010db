/**
 * Exercise 11a's plug: a function that turns a request's Authorization and Idempotency-Key headers
 * into the key a package should see, wrapped as a header rewrite that runs before the package
 * (server-kit.ts `HeaderRewrite`). No key: the header is removed and the package does nothing; a
 * malformed one: 400, before the package; otherwise the package sees the scoped key.
 */
import { keyHeaderValues } from "../protocol/idempotency-key.ts";
import type { HeaderRewrite } from "./server-kit.ts";

/**
 * What a scoping function answers: the key the package should see, why the key is refused, or none.
 */
export type Scoped = { key: string } | { error: string } | undefined;

export type ScopeKey = (authorization: string | undefined, keyValues: readonly string[]) => Scoped;

export function rewriteWith(scope: ScopeKey): HeaderRewrite {
  return (req) => {
    const scoped = scope(req.headers.authorization, keyHeaderValues(req.rawHeaders));
    if (scoped === undefined) {
      delete req.headers["idempotency-key"];
      return undefined;
    }
    if ("error" in scoped) return { status: 400, detail: scoped.error };
    req.headers["idempotency-key"] = scoped.key;
    return undefined;
  };
}
