/**
 * How each server of lesson 11 is wired, as the lesson prints it: what the package's README says to
 * do, and which lines are ours (the code is in the *-server.ts files beside this one).
 */
import { t } from "../core/i18n.ts";
import type { CaseName } from "../probe/verdict.ts";
import { FUNCTION_TIMEOUT_MS } from "./powertools-server.ts";
import type { ServerName } from "./servers.ts";

export interface Wiring {
  /** The README's way, in one sentence. */
  readme: string;
  /** What is ours, one sentence each. */
  ours: string[];
}

/** How `server` is wired, in this process's language. */
export function wiring(server: ServerName): Wiring {
  switch (server) {
    case "express-idempotency":
      return {
        readme: t(
          "idempotency() on every POST route; the handler returns at once when isHit(req) says the middleware answered.",
        ),
        ours: [
          t(
            "the route '/{*path}' for the README's '*', which Express 5 refuses (\"Missing parameter name\")",
          ),
          t(
            "an error handler that chooses the status as Express's default one does and ends with res.end, as it does",
          ),
        ],
      };
    case "node-idempotency":
      return {
        readme: t(
          "onRequest before the handler, its stored answer sent back when it has one; onResponse with the handler's answer.",
        ),
        ours: [
          t(
            "all of the Express glue: @node-idempotency/express, the adapter the README names, is not on the npm registry (npm view: 404)",
          ),
          t(
            'onResponse called from res.send with the status as it stands, errors included (the README: "or error: your_error")',
          ),
          t(
            "its errors answered as the draft says: 409 in progress, 422 another body, 400 a bad key",
          ),
        ],
      };
    case "powertools":
      return {
        readme: t(
          "makeIdempotent(handler, { persistenceStore, config }), the key from the header: eventKeyJmesPath 'headers.\"idempotency-key\"'.",
        ),
        ours: [
          t(
            "the persistence layer: BasePersistenceLayer on SQLite, with the DynamoDB layer's conditional put",
          ),
          t(
            "a Lambda runtime in node:http: an API Gateway event per request, a {seconds} s function timeout, a thrown error answered 500",
            { seconds: FUNCTION_TIMEOUT_MS / 1000 },
          ),
          t(
            "left out: the cache layer (Redis or Valkey) needs a server and a client that cannot be installed here",
          ),
        ],
      };
    case "fenced":
      return {
        readme: t(
          "the workbook's tracker, variant fenced (lessons 04 and 05): keys scoped to the caller, claimed with a lease, completed with the report in one transaction.",
        ),
        ours: [t("all of it: the reference row")],
      };
  }
}

/**
 * The tracker's rule that makes its cell safe, per case, for the cases where a package's is not
 * (the lesson lists only those the run found).
 */
export function trackerRule(name: CaseName): string | undefined {
  switch (name) {
    case "different-body":
      return t("a key reused for another request is refused with 422");
    case "different-path":
      return t("the route is part of the request's fingerprint");
    case "concurrent":
      return t("the key is claimed in a transaction before the work, so one request wins");
    case "lost-response":
      return t("the answer is stored with the key and replayed");
    case "crash":
      return t(
        "keys live in the reports' database, completed in the transaction that stores the report",
      );
    case "other-caller":
      return t("keys are scoped to the caller the Authorization header names");
    case "quoted-key":
      return t(
        "the key is parsed in both forms, the draft's quoted string and Stripe's bare token",
      );
    default:
      return undefined;
  }
}
