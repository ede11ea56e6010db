/**
 * The three package servers by name, one chooser for both places that start one: a case's server in
 * this process (servers.ts) and the crash case's child process (child-entry.ts). Kept apart from
 * servers.ts, which starts that child process, so that the child's entry does not import the module
 * that starts it.
 */
import { startExpressIdempotency } from "./express-idempotency-server.ts";
import { startNodeIdempotency } from "./node-idempotency-server.ts";
import { startPowertools } from "./powertools-server.ts";
import type { Listening, ServerSetup } from "./server-kit.ts";

/** The servers built on a package from npm (fixed names: `--only` and `--json` use them). */
export const MIDDLEWARE_NAMES = ["express-idempotency", "node-idempotency", "powertools"] as const;
export type MiddlewareName = (typeof MIDDLEWARE_NAMES)[number];

/** Starts one of the three package servers over `setup`. */
export function startMiddlewareServer(
  name: MiddlewareName,
  setup: ServerSetup & { dbPath: string },
  port = 0,
): Promise<Listening> {
  switch (name) {
    case "express-idempotency":
      return startExpressIdempotency(setup, port);
    case "node-idempotency":
      return startNodeIdempotency(setup, port);
    case "powertools":
      return startPowertools(setup, port);
  }
}
